"""Driver side: one persistent world of N worker processes joined in a process group (gloo, or
NCCL where each rank has a GPU: :mod:`graders.world.backend`).

A :class:`ProcessWorld` forks its ranks from the :class:`ForkServer` (a fork server that has
already imported torch) into a process group of their own, hosts their rendezvous store on a
loopback port chosen by the kernel, and talks to each rank over a private socket pair. It
sends task messages and collects the raw replies with a deadline; interpreting them is the job
of :mod:`graders.world.pool`.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from multiprocessing.connection import Connection, wait

from graders.errors import WorldStartError
from graders.proc import tail_file
from graders.world import wire
from graders.world.backend import Placement
from graders.world.fork_server import ForkServer
from graders.world.patience import GRACE_STRETCH, SAMPLE_S, Patience

CPU = Placement()


@dataclass
class Collected:
    """What came back from one task: replies per rank, and what went wrong with the others."""

    replies: list[dict | None]
    crashed: dict[int, str] = field(default_factory=dict)  # rank -> why its channel closed
    pending: set[int] = field(default_factory=set)  # ranks that never answered
    timed_out: bool = False
    elapsed: float = 0.0
    #: when the first rank failed: the others then get only the grace
    failed_at: float | None = field(default=None, repr=False)

    @classmethod
    def waiting_for(cls, size: int) -> Collected:
        return cls([None] * size, pending=set(range(size)))

    def limit(self, end: float, grace: float) -> float:
        """Until when to wait: ``end``, or ``grace`` seconds after the first failure if sooner."""
        return end if self.failed_at is None else min(end, self.failed_at + grace)

    def closed(self, rank: int) -> None:
        """``rank``'s channel closed before it replied: a failure."""
        self.pending.discard(rank)
        self.crashed[rank] = "closed"
        self._failed()

    def take(self, rank: int, data: bytes) -> None:
        """Record ``rank``'s encoded reply; a corrupt one is a crash, and one that raised, was
        not started, or is corrupt is a failure."""
        self.pending.discard(rank)
        try:
            reply = wire.decode(data)
            if not isinstance(reply, dict):
                raise wire.WireError("reply is not a dict")
        except wire.WireError as exc:
            self.crashed[rank] = f"sent a corrupt reply ({exc})"
            self._failed()
            return
        self.replies[rank] = reply
        if "error" in reply or "todo" in reply or "missing" in reply:
            self._failed()

    def _failed(self) -> None:
        if self.failed_at is None:
            self.failed_at = time.monotonic()

    def ended(self, started: float) -> Collected:
        """Done waiting: those still pending timed out, unless a failure cut the wait short."""
        self.timed_out = bool(self.pending) and self.failed_at is None
        self.elapsed = time.monotonic() - started
        return self


class ProcessWorld:
    def __init__(
        self,
        size: int,
        fork_server: ForkServer,
        base_dir: str,
        *,
        pg_timeout: float = 30.0,
        placement: Placement = CPU,
    ) -> None:
        self.size = size
        self.placement = placement
        self.fork_server = fork_server
        self.base_dir = base_dir
        self.pg_timeout = pg_timeout
        self.pids: list[int] = []
        self.pgid = 0
        self.conns: list[Connection] = []
        self.dir = ""
        self.ready = False
        self.store = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Fork the ranks without waiting for them to join (they rendezvous meanwhile)."""
        from torch.distributed import TCPStore

        self.dir = tempfile.mkdtemp(prefix=f"world{self.size}-", dir=self.base_dir)
        self.store = TCPStore(
            "127.0.0.1",
            0,
            world_size=None,
            is_master=True,
            wait_for_workers=False,
            timeout=timedelta(seconds=60),
        )
        for pid, pgid, conn in self.fork_server.spawn(
            self.size, self.dir, self.store.port, self.pg_timeout, self.placement
        ):
            self.pids.append(pid)
            self.pgid = pgid
            self.conns.append(conn)

    def wait_ready(self, timeout: float = 120.0) -> None:
        if self.ready:
            return
        pending = set(range(self.size))
        deadline = time.monotonic() + timeout
        while pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for conn in wait([self.conns[r] for r in pending], remaining):
                rank = self.conns.index(conn)
                try:
                    wire.decode(conn.recv_bytes())
                except (EOFError, OSError, wire.WireError):
                    message = self._start_failure(rank)
                    self.kill()
                    raise WorldStartError(message) from None
                pending.discard(rank)
        if pending:
            self.kill()
            raise WorldStartError(f"world of {self.size} did not start within {timeout:.0f} s")
        self.ready = True

    def _start_failure(self, rank: int) -> str:
        log = self.read_file(f"log-{rank}", tail=3000)
        return f"rank {rank} of a world of {self.size} failed to start:\n{log}"

    def kill(self) -> None:
        """SIGKILL every rank (and anything they forked), then remove the world's files."""
        if self.pgid:
            try:
                os.killpg(self.pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for conn in self.conns:
            conn.close()
        self.pids, self.pgid, self.conns, self.ready, self.store = [], 0, [], False, None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = ""

    def close(self) -> None:
        """End the world. Ranks keep no state worth a graceful exit, and one still joining its
        group would not read an exit message, so they are killed at once (the fork server reaps)."""
        self.kill()

    # -- tasks -------------------------------------------------------------------------------
    def send(self, message: dict) -> None:
        payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        for conn in self.conns:
            conn.send_bytes(payload)

    def collect(self, deadline: float, grace: float) -> Collected:
        """Wait for every rank's reply until ``deadline`` (seconds from now).

        Once one rank has failed (an exception or a closed channel), the others get only
        ``grace`` seconds more: if they have not answered by then they are stuck waiting for it.
        """
        started = time.monotonic()
        end = started + deadline
        got = Collected.waiting_for(self.size)
        patience = Patience(lambda: self.pids, deadline)
        stretched = grace
        while got.pending:
            limit = got.limit(end, stretched)
            if time.monotonic() >= limit:
                if got.failed_at is None and patience.more():  # still working: a slow machine
                    end = time.monotonic() + SAMPLE_S
                    continue
                if got.failed_at is not None and self._settling(got, patience, grace):
                    stretched = time.monotonic() + SAMPLE_S - got.failed_at
                    end = max(end, got.failed_at + stretched)
                    continue
                break
            for conn in wait([self.conns[r] for r in got.pending], patience.timeout(limit)):
                rank = self.conns.index(conn)
                try:
                    data = conn.recv_bytes()
                except (EOFError, OSError):
                    got.closed(rank)
                else:
                    got.take(rank, data)
            patience.sample()
        return got.ended(started)

    def _settling(self, got: Collected, patience: Patience, grace: float) -> bool:
        """After a failure, whether a rank still pending is working (about to reply or to end),
        within :data:`GRACE_STRETCH` graces of its own processor time (not of wall time: how many
        ranks a report names must not depend on the load)."""
        pids = [self.pids[rank] for rank in got.pending if rank < len(self.pids)]
        return patience.still_working(pids, budget=GRACE_STRETCH * grace)

    # -- post-mortem helpers -----------------------------------------------------------------
    def read_file(self, name: str, tail: int = 4000) -> str:
        return tail_file(os.path.join(self.dir, name), tail)

    def status(self, rank: int) -> str:
        return self.read_file(f"status-{rank}", tail=1024).strip()

    def note(self, rank: int) -> str:
        """The rank's last ``ctx.note`` of the current task (empty when none)."""
        return self.read_file(f"note-{rank}", tail=1024).strip()

    def dump_stacks(self, ranks: set[int], settle: float = 0.3) -> dict[int, str]:
        """Ask the given ranks to write their Python stacks (SIGUSR1 → faulthandler)."""
        for rank in ranks:
            try:
                os.kill(self.pids[rank], signal.SIGUSR1)
            except (ProcessLookupError, IndexError):
                pass
        time.sleep(settle)
        return {rank: self.read_file(f"stack-{rank}", tail=6000) for rank in ranks}

    def exit_reason(self, rank: int, wait_s: float = 2.0) -> str:
        return exit_reason_of(self.fork_server.exit_statuses([self.pids[rank]], wait_s).get(self.pids[rank]))


def exit_reason_of(status: int | None) -> str:
    """A rank's end in words, from its wait status (None: it has not ended)."""
    if status is None:
        return "stopped answering"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"killed by {name}"
    return f"exited with code {os.waitstatus_to_exitcode(status)}"
