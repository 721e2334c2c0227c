"""What one submission may use (:class:`Limits`), and the part every process enforces itself.

The rlimits bind each process of the graded tree: the data segment (``RLIMIT_DATA``: a 50 GB
allocation fails at once), CPU seconds, file size (a flood of output), open files, no core
dumps, and the number of processes (``RLIMIT_NPROC``, which binds only when not root). The
whole-tree ceilings are the cgroup's (:mod:`graders.grading.sandbox.cgroup`).
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

from graders.grading.sandbox.process_tree import PROC, process_dirs, stat_fields

#: Index of ``num_threads`` in :func:`~graders.grading.sandbox.process_tree.stat_fields`.
_NUM_THREADS = 17


@dataclass(frozen=True)
class Limits:
    """What one submission may use. Memory and processes count the whole tree (cgroup)."""

    wall_s: float = 600.0
    memory_mb: int = 6144  # the whole tree (cgroup); without a cgroup, per process
    process_memory_mb: int = 3072  # RLIMIT_DATA of every process
    cpu_s: int = 1200  # RLIMIT_CPU of every process
    pids: int = 256  # cgroup pids.max; RLIMIT_NPROC when not root
    disk_mb: int = 512  # the work area (work folder, /tmp, /dev/shm): one tmpfs (namespaces only)
    file_mb: int = 16  # RLIMIT_FSIZE: no single file (a rank's log of one task) grows beyond this
    open_files: int = 4096


def apply_rlimits(limits: Limits, as_root: bool) -> None:
    mib = 1024 * 1024
    wanted = {
        resource.RLIMIT_DATA: limits.process_memory_mb * mib,
        resource.RLIMIT_CPU: int(limits.cpu_s),
        resource.RLIMIT_FSIZE: limits.file_mb * mib,
        resource.RLIMIT_NOFILE: limits.open_files,
        resource.RLIMIT_CORE: 0,
    }
    if not as_root:
        # Counts every thread of this uid; a root-owned tree is bounded by the cgroup instead.
        wanted[resource.RLIMIT_NPROC] = threads_of_user(os.getuid()) + limits.pids
    for which, value in wanted.items():
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def threads_of_user(uid: int, proc: Path = PROC) -> int:
    """What RLIMIT_NPROC counts: the threads of every process of ``uid``."""
    count = 0
    for pid_dir in process_dirs(proc):
        try:
            if pid_dir.stat().st_uid == uid:
                count += int(stat_fields(pid_dir)[_NUM_THREADS])
        except (OSError, ValueError, IndexError):
            pass
    return count
