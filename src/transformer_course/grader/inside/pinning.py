"""Pinned settings for a check's call: the process-wide settings a learner's cells may
change (torch's modes and defaults, numpy's, Python's recursion limit) take the values the
checks expect while a call runs, and the learner's come back after it."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

__all__ = ["TORCH_PRINT_OPTIONS", "PinnedState"]

TORCH_PRINT_OPTIONS = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")


class PinnedState:
    """The server's pinning of process-wide settings (its ``numpy_defaults`` and
    ``recursion_default`` are read before any learner code runs)."""

    numpy_defaults: tuple[dict, dict]
    recursion_default: int

    @contextlib.contextmanager
    def pinned_state(self):
        """Process-wide settings a learner's cells may change take their pinned values for a
        check's call, and the learner's come back after it: a verdict depends on the
        function, not on what the notebook set. Pinned: torch's grad mode, inference mode,
        default dtype, default device and any other torch function or dispatch mode left
        entered (``torch.set_default_device``, ``with torch.device(...)`` entered by hand),
        threads, anomaly detection, deterministic algorithms, float32 matmul precision,
        CPU autocast, warn-always and print options; numpy's error handling and print
        options; Python's recursion limit. (Warnings filters are reset by the caller.)"""
        torch = sys.modules.get("torch")
        numpy = sys.modules.get("numpy")
        saved: dict[str, Any] = {"recursion": sys.getrecursionlimit()}
        settings = _torch_settings(torch) if torch is not None else []
        # (read, write, the learner's value); a setting is written only where it differs:
        # some setters are costly (use_deterministic_algorithms imports torch._dynamo)
        saved["torch"] = [(read, write, read()) for _, read, write, _ in settings]
        if torch is not None:
            options = torch._tensor_str.PRINT_OPTS
            saved["printing"] = {k: getattr(options, k) for k in TORCH_PRINT_OPTIONS}
        if numpy is not None:
            saved["numpy"] = (numpy.geterr(), numpy.get_printoptions())
        try:
            with contextlib.ExitStack() as stack:
                if torch is not None:
                    stack.enter_context(torch.inference_mode(False))
                    stack.enter_context(_without_torch_modes(torch))
                    for _, read, write, pinned in settings:
                        if read() != pinned:
                            write(pinned)
                    torch.set_printoptions(profile="default", sci_mode=None)
                if numpy is not None:
                    numpy.seterr(**self.numpy_defaults[0])
                    numpy.set_printoptions(**self.numpy_defaults[1])
                sys.setrecursionlimit(self.recursion_default)
                yield
        finally:  # the learner's settings, once the contexts above have closed
            with contextlib.suppress(RecursionError, ValueError):
                sys.setrecursionlimit(saved["recursion"])
            for read, write, value in saved["torch"]:
                if read() != value:
                    write(value)
            if "printing" in saved:
                torch.set_printoptions(**saved["printing"])
            if "numpy" in saved:
                numpy.seterr(**saved["numpy"][0])
                numpy.set_printoptions(**saved["numpy"][1])


def _torch_settings(torch) -> list[tuple[str, Any, Any, Any]]:
    """(what, read, write, pinned value) of each process-wide torch setting a check's call
    runs under (the values torch starts with)."""

    def autocast_cpu():
        return torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")

    def set_autocast_cpu(value) -> None:
        torch.set_autocast_enabled("cpu", value[0])
        torch.set_autocast_dtype("cpu", value[1])

    def anomaly():
        return torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()

    def deterministic():
        return (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        )

    return [
        ("grad mode", torch.is_grad_enabled, torch.set_grad_enabled, True),
        ("default dtype", torch.get_default_dtype, torch.set_default_dtype, torch.float32),
        ("threads", torch.get_num_threads, torch.set_num_threads, 1),
        ("anomaly detection", anomaly, lambda v: torch.set_anomaly_enabled(*v), (False, True)),
        (
            "deterministic algorithms",
            deterministic,
            lambda v: torch.use_deterministic_algorithms(v[0], warn_only=v[1]),
            (False, False),
        ),
        (
            "float32 matmul precision",
            torch.get_float32_matmul_precision,
            torch.set_float32_matmul_precision,
            "highest",
        ),
        ("CPU autocast", autocast_cpu, set_autocast_cpu, (False, torch.bfloat16)),
        (
            "autocast cache",
            torch.is_autocast_cache_enabled,
            torch.set_autocast_cache_enabled,
            True,
        ),
        ("warn always", torch.is_warn_always_enabled, torch.set_warn_always, False),
    ]


@contextlib.contextmanager
def _without_torch_modes(torch):
    """No torch function mode (the default device of ``torch.set_default_device``, a
    ``torch.device`` entered by hand, any ``TorchFunctionMode``) and no dispatch mode in
    force; the learner's come back, in their order, afterwards."""
    try:
        from torch.utils._python_dispatch import _disable_current_modes as no_dispatch_modes
    except ImportError:  # another torch: function modes only
        no_dispatch_modes = contextlib.nullcontext
    functions = []
    while torch._C._len_torch_function_stack() > 0:
        functions.append(torch._C._pop_torch_function_stack())
    try:
        with no_dispatch_modes():
            yield
    finally:
        for mode in reversed(functions):
            torch._C._push_on_torch_function_stack(mode)
