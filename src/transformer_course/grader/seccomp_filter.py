"""Seccomp filters for the sandbox: system calls a learner's code never needs are refused
by the kernel (``EPERM``), whatever the code does to Python.

The filters are classic BPF programs built on the grader's side by **libseccomp**
(the system's ``libseccomp.so.2``: Debian's ``libseccomp2``, conda-forge's
``libseccomp``), called through :mod:`ctypes` (libseccomp's own Python bindings are
not on PyPI; a ctypes call per function keeps the course free of a compiled
dependency). The programs travel into the sandbox as bytes; nothing inside it needs
libseccomp.

Two filters:

* :data:`DENIED_IN_SANDBOX`, given to bubblewrap (``--seccomp FD``) for the whole
  sandbox, the zygote included: anonymous memory files (``memfd_create``: their pages
  are not counted by ``RLIMIT_AS``), ``userfaultfd``, tracing and reading other
  processes' memory, eBPF, the kernel keyring, performance counters, kernel modules,
  ``kexec``, ``io_uring``, ``open_by_handle_at``, swap, reboot and accounting.
* :data:`DENIED_TO_LEARNERS` on top, loaded by each learner process once its own
  namespaces and private ``/tmp`` are in place (the zygote needs ``unshare`` and
  ``mount`` to build them, so the sandbox-wide filter cannot deny them): new
  namespaces (``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag; ``clone3``
  answers ``ENOSYS`` so that the C library falls back to ``clone``, whose flags a
  filter can read), ``mount`` and the new mount API, ``pivot_root``, ``chroot``.

bubblewrap's ``--disable-userns`` is not used: it would also stop the zygote from giving
each learner a user namespace of its own; the learner filter denies the learner's code
any further namespace instead.

Any other architecture's system calls (the i386 ones through ``int 0x80``, x32) kill
the process (libseccomp's default for a foreign architecture).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os

from transformer_course.grader.inside.seccomp import install, install_encoded

__all__ = [
    "DENIED_IN_SANDBOX",
    "DENIED_TO_LEARNERS",
    "SeccompUnavailable",
    "build",
    "install",
    "install_encoded",
]

DENIED_IN_SANDBOX = (
    "memfd_create", "memfd_secret", "userfaultfd", "ptrace", "process_vm_readv",
    "process_vm_writev", "process_madvise", "bpf", "keyctl", "add_key", "request_key",
    "perf_event_open", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "open_by_handle_at", "name_to_handle_at", "swapon", "swapoff", "reboot", "acct",
    "quotactl", "lookup_dcookie", "fanotify_init", "add_key",
)  # fmt: skip
DENIED_TO_LEARNERS = (
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount",
    "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
)  # fmt: skip
CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7
PR_SET_NO_NEW_PRIVS = 38


def _errno_action(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)  # SCMP_ACT_ERRNO(number)


class SeccompUnavailable(RuntimeError):
    """libseccomp is missing, or it could not build the filter."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@functools.cache
def _libseccomp() -> ctypes.CDLL:
    names = ["libseccomp.so.2", ctypes.util.find_library("seccomp")]
    for name in filter(None, names):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            continue
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
        lib.seccomp_rule_add_array.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.POINTER(_ArgCmp),
        ]
        lib.seccomp_rule_add_array.restype = ctypes.c_int
        lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.seccomp_export_bpf.restype = ctypes.c_int
        return lib
    raise SeccompUnavailable(
        "libseccomp is not installed (Debian/Ubuntu: apt-get install libseccomp2; conda: "
        "conda install -c conda-forge libseccomp)"
    )


def build(kind: str) -> bytes:
    """The BPF program (``struct sock_filter`` items) for ``"sandbox"`` or ``"learner"``."""
    if kind not in ("sandbox", "learner"):
        raise ValueError(f"kind must be 'sandbox' or 'learner', not {kind!r}")
    lib = _libseccomp()
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not context:
        raise SeccompUnavailable("seccomp_init failed")
    try:
        denied = DENIED_IN_SANDBOX + (DENIED_TO_LEARNERS if kind == "learner" else ())
        for name in dict.fromkeys(denied):
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:  # unknown to this libseccomp (a newer call): nothing to deny
                continue
            _add(lib, context, _errno_action(errno.EPERM), number)
        if kind == "learner":
            clone = lib.seccomp_syscall_resolve_name(b"clone")
            for flag in CLONE_NAMESPACE_FLAGS.values():
                _add(
                    lib,
                    context,
                    _errno_action(errno.EPERM),
                    clone,
                    _ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag),
                )
            clone3 = lib.seccomp_syscall_resolve_name(b"clone3")
            if clone3 >= 0:  # its flags live in memory a filter cannot read: use clone
                _add(lib, context, _errno_action(errno.ENOSYS), clone3)
        read_end, write_end = os.pipe()
        try:
            if lib.seccomp_export_bpf(context, write_end) != 0:
                raise SeccompUnavailable("seccomp_export_bpf failed")
            os.close(write_end)
            write_end = -1
            program = b""
            while chunk := os.read(read_end, 65536):
                program += chunk
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
    finally:
        lib.seccomp_release(context)
    if not program or len(program) % 8:
        raise SeccompUnavailable("libseccomp produced no filter")
    return program


def _add(lib, context, action: int, number: int, *conditions: _ArgCmp) -> None:
    array = (_ArgCmp * max(1, len(conditions)))(*conditions)
    result = lib.seccomp_rule_add_array(context, action, number, len(conditions), array)
    if result != 0:
        raise SeccompUnavailable(f"libseccomp refused a rule for system call {number}: {result}")
