"""The import guard inside the sandbox: the course's reference modules come from source the
grader sent, the current lesson's reference is a guarded module (a stand-in per exercise
until the grader releases it), and ``transformer_course.checks`` is a stand-in whose
functions do nothing (the checks run in the grader)."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import linecache
import types

__all__ = ["COURSE_FILE_PREFIX", "CourseFinder"]

COURSE_FILE_PREFIX = "<course:"


class _SourceLoader(importlib.abc.Loader):
    def __init__(self, fullname: str, source: str, package: bool = False):
        self.fullname = fullname
        self.source = source
        self.package = package
        self.filename = f"{COURSE_FILE_PREFIX}{fullname}>"

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        module.__file__ = self.filename
        if self.package:
            module.__path__ = []
        linecache.cache[self.filename] = (
            len(self.source),
            None,
            self.source.splitlines(True),
            self.filename,
        )
        exec(compile(self.source, self.filename, "exec"), module.__dict__)

    def get_source(self, fullname: str) -> str:
        return self.source


class _StandInModule(types.ModuleType):
    """``transformer_course.checks`` inside the sandbox: importing a check gives a no-op."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)

        def stand_in(*args, **kwargs):
            return None

        stand_in.__name__ = stand_in.__qualname__ = name
        stand_in.__doc__ = "The checks run in the grader, not in the notebook, while grading."
        return stand_in


class _StandInLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _StandInModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        module.__file__ = f"{COURSE_FILE_PREFIX}{module.__name__}>"


class _GuardedLoader(importlib.abc.Loader):
    def __init__(self, server):
        self.server = server

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        self.server.fill_guarded(module)


class CourseFinder(importlib.abc.MetaPathFinder):
    """Serves the course's reference modules from source sent by the grader, the current
    lesson's reference as a guarded module, and stand-ins for the checks."""

    def __init__(self, server, sources: dict[str, str], guarded: str | None):
        self.server = server
        self.sources = sources
        self.guarded = guarded

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "transformer_course.checks" or fullname.startswith(
            "transformer_course.checks."
        ):
            return importlib.machinery.ModuleSpec(fullname, _StandInLoader(), is_package=True)
        if fullname == self.guarded:
            return importlib.machinery.ModuleSpec(fullname, _GuardedLoader(self.server))
        if fullname in self.sources:
            return importlib.machinery.ModuleSpec(
                fullname, _SourceLoader(fullname, self.sources[fullname])
            )
        return None
