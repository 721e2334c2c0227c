"""A process tree as ``/proc`` shows it: who descends from whom, and killing a subtree whole.

Without a PID namespace the supervisor is a child subreaper, so whatever the graded code forks
(and orphans) stays below it; :func:`kill_descendants` is how it ends that tree. Every function
takes the ``/proc`` to read, so a test can hand it a fake one.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from graders.proc import reap_children

PROC = Path("/proc")


def stat_fields(pid_dir: Path) -> list[str]:
    """The fields of ``<pid_dir>/stat`` after the command name: state, ppid, ... (``proc(5)``).

    The name is in parentheses and may itself hold spaces and parentheses, hence the split at
    the last ``)``. Raises :class:`OSError` (the process is gone) or :class:`ValueError`.
    """
    stat = (pid_dir / "stat").read_text()
    if ")" not in stat:
        raise ValueError(f"not a stat line: {stat[:80]!r}")
    return stat.rsplit(")", 1)[1].split()


def process_dirs(proc: Path = PROC) -> Iterator[Path]:
    """``/proc/<pid>`` of every process."""
    for entry in os.listdir(proc):
        if entry.isdigit():
            yield proc / entry


def parents(proc: Path = PROC) -> dict[int, int]:
    """``pid -> parent pid`` of every live process (zombies left out: they are already dead)."""
    found: dict[int, int] = {}
    for pid_dir in process_dirs(proc):
        try:
            fields = stat_fields(pid_dir)
        except (OSError, ValueError):
            continue
        if fields[0] != "Z":
            found[int(pid_dir.name)] = int(fields[1])
    return found


def descendants(root_pid: int, proc: Path = PROC) -> list[int]:
    """Every live process below ``root_pid`` (children, their children, ...), sorted."""
    tree = parents(proc)
    found, frontier = set(), [root_pid]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in tree.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    return sorted(found)


def kill_descendants(root_pid: int, wait_s: float = 3.0, proc: Path = PROC) -> None:
    """SIGKILL every process below ``root_pid`` (by walking ``/proc``), until there is none.

    Reaps this process's ended children as it goes (the subreaper's orphans among them).
    """
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        children = descendants(root_pid, proc)
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap_children({})
        time.sleep(0.01)
