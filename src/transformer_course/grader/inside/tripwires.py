"""Tripwires: every member of a forbidden API's family, wrapped so that a call of it from
the learner's code while an exercise is checked is recorded for the grader (the course's own
reference code may call them). Tensor methods (``torch.Tensor.softmax``) are wrapped on the
class, so ``x.softmax(-1)`` is seen as the notebook's check sees it."""

from __future__ import annotations

import importlib
import sys

from transformer_course.grader.inside.frames import cell_of, is_learner_file
from transformer_course.grader.inside.importing import COURSE_FILE_PREFIX

__all__ = ["Tripwires"]


class Tripwires:
    """The server's tripwires (``trips`` collects what they saw during a call)."""

    scratch: str
    exercise: str | None
    trips: list[dict]

    def install_tripwires(self, tripwires: dict[str, list[str]]) -> None:
        import fnmatch

        wanted = sorted({name for names in tripwires.values() for name in names})
        for dotted in wanted:
            module_name, _, pattern = dotted.rpartition(".")
            try:
                module = importlib.import_module(module_name)
            except Exception:
                owner_name, _, attr = module_name.rpartition(".")
                try:
                    module = getattr(importlib.import_module(owner_name), attr)
                except Exception:
                    continue
            names = (
                [n for n in dir(module) if fnmatch.fnmatchcase(n, pattern)]
                if any(ch in pattern for ch in "*?[")
                else [pattern]
            )
            for attr in names:
                original = getattr(module, attr, None)
                if original is None:
                    continue
                label = f"{module_name}.{attr}"
                if isinstance(original, type):
                    self._wire_class(original, label)
                elif callable(original):
                    wrapper = self._wire_function(original, label)
                    if isinstance(module, type):  # a tensor method (torch.Tensor.softmax)
                        try:
                            setattr(module, attr, wrapper)
                        except (AttributeError, TypeError):
                            pass
                        continue
                    for owner in self._owners(original, module):
                        for key, value in list(vars(owner).items()):
                            if value is original:
                                try:
                                    setattr(owner, key, wrapper)
                                except (AttributeError, TypeError):
                                    pass

    @staticmethod
    def _owners(original, module) -> list:
        owners = [module]
        for name in (
            "torch",
            "torch.nn.functional",
            "torch._C",
            "torch._C._nn",
            "torch.special",
            "numpy",
            "scipy.special",
            "torch.nn",
        ):
            candidate = sys.modules.get(name)
            if candidate is not None and candidate not in owners:
                owners.append(candidate)
        return owners

    def _trip(self, label: str) -> None:
        frame = sys._getframe(2)
        cell = None
        learner = False
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith(COURSE_FILE_PREFIX):
                return  # the course's own reference code called it
            if is_learner_file(filename, self.scratch):
                learner = True
                cell = cell_of(filename)
                break
            frame = frame.f_back
        if learner:
            self.trips.append({"api": label, "exercise": self.exercise, "origin": cell})

    def _wire_function(self, original, label: str):
        server = self

        def tripwire(*args, **kwargs):
            server._trip(label)
            return original(*args, **kwargs)

        tripwire.__name__ = getattr(original, "__name__", "function")
        tripwire.__doc__ = getattr(original, "__doc__", None)
        return tripwire

    def _wire_class(self, cls: type, label: str) -> None:
        server = self
        original_init = cls.__init__

        def __init__(self, *args, **kwargs):
            server._trip(label)
            return original_init(self, *args, **kwargs)

        try:
            cls.__init__ = __init__
        except (AttributeError, TypeError):
            pass
