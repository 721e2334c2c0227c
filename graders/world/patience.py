"""How long to wait for a world: a deadline on the world's own work, not on the machine's load.

A task's deadline is a number of seconds on a quiet machine. On a loaded one, a correct run gets
less of the processor and takes longer, and it must not lose points for that; a cheat must be
caught by a check, never by the clock. So when the deadline passes, the world gets more time,
half a second at a time, for as long as it is still working:

* a world none of whose ranks used the processor in the last half second is stuck (a deadlock,
  a sleep, a wait for a rank that died) and is reported at once, loaded machine or not;
* a world whose busiest rank has used ``deadline`` seconds of processor time since the task
  began is stuck in a loop: a quiet machine would have ended it by now;
* no world waits past :data:`STRETCH` times its deadline.

The same holds after a rank has failed: the others get a short grace to reply or to end (a rank
that sees its peer gone raises at once), and the grace is stretched the same way, for the ranks
still pending only, as long as one of them is still working (up to :data:`GRACE_STRETCH` graces of
its own processor time).
So which ranks a report names as crashed, raised or stuck does not depend on the load either.

The processor times are the ranks' own, read from ``/proc``; where they cannot be read (ranks on
other machines), the deadline is wall time as before.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

#: how often the ranks' processor time is read while a task runs longer than this
SAMPLE_S = 0.5
#: processor seconds one rank must use in a sample for the world to count as working
PROGRESS_S = 0.02
#: the longest a working world is waited for, in deadlines
STRETCH = 8.0
#: the most processor time a rank still working after a failure is waited for, in graces
GRACE_STRETCH = 8.0
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """The processor time ``pid`` has used (all its threads, user and system), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return None


def _runnable(pid: int) -> bool:
    """Whether ``pid`` is running, waiting for a processor, or waiting for the disk (states ``R``
    and ``D`` in ``/proc``): on a loaded machine a rank reading its modules can spend a whole
    sample in the disk's queue, while a stuck rank waits on a socket or a lock (``S``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rsplit(b")", 1)[1].split()[0] in (b"R", b"D")
    except (OSError, IndexError):
        return False


class Patience:
    """The wait for one task: :meth:`sample` while waiting, :meth:`more` when the deadline passed."""

    def __init__(self, pids: Callable[[], list[int]], deadline: float) -> None:
        self.pids, self.deadline = pids, deadline
        self.started = self.sampled_at = time.monotonic()
        #: read at the first sample, not at the start: a task that ends within a sample (nearly
        #: every one) costs nothing; a busy loop's budget then counts from half a second in
        self.first: dict[int, float] | None = None
        self.last: dict[int, float] = {}
        self.recent = 0.0
        self.recent_by_pid: dict[int, float] = {}
        #: whether a whole sample's processor time has been read yet (the first read has nothing
        #: to be compared with: a rank's recent work is unknown until the second)
        self.measured = False

    def _read(self) -> dict[int, float]:
        found = {}
        for pid in self.pids():
            seconds = cpu_seconds(pid) if pid else None
            if seconds is not None:
                found[pid] = seconds
        return found

    def timeout(self, limit: float) -> float:
        """How long to wait for replies now: until ``limit``, reading the ranks' time on the way."""
        return max(0.0, min(limit, self.sampled_at + SAMPLE_S) - time.monotonic())

    def sample(self) -> None:
        """Read the ranks' processor time when a sample is due."""
        now = time.monotonic()
        if now - self.sampled_at < SAMPLE_S:
            return
        current = self._read()
        if self.first is None:
            self.first = current
        self.measured = bool(self.last)
        self.recent_by_pid = {p: current[p] - self.last.get(p, current[p]) for p in current}
        self.recent = max(self.recent_by_pid.values(), default=0.0)
        self.last, self.sampled_at = current, now

    def still_working(self, pids: list[int], budget: float) -> bool:
        """Whether one of ``pids`` is still working: it used the processor in the last sample (or
        waits for it now), and less than ``budget`` processor seconds since the task began; never
        past :data:`STRETCH` times the deadline or the budget, whichever is longer, of wall time
        (the budget is processor time: on a loaded machine it takes longer than that to use)."""
        self.sample()
        if time.monotonic() >= self.started + STRETCH * max(self.deadline, budget):
            return False
        first = self.first or {}
        # until a whole sample has been read, a rank's recent work is unknown: it is presumed
        # working (one more sample, half a second), or a rank caught off the processor at the
        # first read would be named stuck on a loaded machine and not on a quiet one
        return any(
            (not self.measured or self.recent_by_pid.get(p, 0.0) >= PROGRESS_S or _runnable(p))
            and self.last.get(p, 0.0) - first.get(p, self.last.get(p, 0.0)) < budget
            for p in pids
        )

    def more(self) -> bool:
        """The deadline passed: whether the world is still working within its budget."""
        self.sample()
        if not self.first or time.monotonic() >= self.started + STRETCH * self.deadline:
            return False
        used = max((self.last.get(p, t) - t for p, t in self.first.items()), default=0.0)
        return self.recent >= PROGRESS_S and used < self.deadline
