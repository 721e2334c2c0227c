"""Driver side of a launched world: one task in a world torchrun's own launcher starts.

:class:`LaunchedWorld` asks the fork server for an agent (:mod:`graders.world.launched.ranks`) that
launches the ranks, then waits for their replies (``reply-<rank>`` files, in the restricted wire
format) under the task's deadline, like a persistent world waits on its pipes: a rank that
replied with an error gives the others a short grace, a rank that ended without a reply crashed,
and the ranks still running at the deadline hang. Everything a report reads of a persistent
world (status boards, notes, Python stacks on SIGUSR1, logs, exit reasons) it reads here from
the launch folder. A launched world serves one task: it is killed and its folder removed after.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time

import torch

from graders.world.launched.ranks import EXITS, REPLY
from graders.world.patience import SAMPLE_S, Patience
from graders.world.process_world import Collected, ProcessWorld

POLL_S = 0.01
#: the most bytes read back of one output file
OUTPUT_LIMIT = 1 << 20


class LaunchedWorld(ProcessWorld):
    def start_task(self, message: dict) -> None:
        """Launch the ranks on ``message``'s task, in a fresh folder holding the files its case
        names (``case.launch_files()``: name -> what ``torch.save`` writes there). The ranks see
        the GPUs only in an NCCL placement (one GPU each); otherwise the program runs as on a
        machine without any."""
        self.dir = tempfile.mkdtemp(prefix=f"launched{self.size}-", dir=self.base_dir)
        files = getattr(message["case"], "launch_files", dict)()
        for name, value in files.items():
            torch.save(value, os.path.join(self.dir, name))
        gpus = self.placement.backend == "nccl"
        self.agent, self.pgid = self.fork_server.launch(self.size, self.dir, message, gpus=gpus)
        self.ready = True

    @property
    def pids(self) -> list[int]:
        """The ranks' pids, as far as they have started (0 for one that has not)."""
        found = []
        for rank in range(self.size):
            text = self.read_file(f"pid-{rank}", tail=32).strip()
            found.append(int(text) if text.isdigit() else 0)
        return found

    @pids.setter
    def pids(self, value) -> None:  # ProcessWorld's bookkeeping; a launched world reads its files
        pass

    def _agent_exited(self) -> bool:
        return self.fork_server.exit_statuses([self.agent], 0).get(self.agent) is not None

    def collect(self, deadline: float, grace: float) -> Collected:
        started = time.monotonic()
        end = started + deadline
        got = Collected.waiting_for(self.size)
        patience = Patience(lambda: self.pids, deadline)
        while got.pending:
            if time.monotonic() >= got.limit(end, grace):
                if got.failed_at is None and patience.more():  # still working: a slow machine
                    end = time.monotonic() + SAMPLE_S
                    continue
                break
            patience.sample()
            agent_done = self._agent_exited()
            for rank in sorted(got.pending):
                path = os.path.join(self.dir, REPLY.format(rank=rank))
                if os.path.exists(path):
                    with open(path, "rb") as file:
                        got.take(rank, file.read())
            if agent_done and got.pending:  # the launcher stopped: who has not replied never will
                got.crashed.update({rank: "closed" for rank in self._failed_first(got.pending)})
                got.pending.clear()
                break
            time.sleep(POLL_S)
        return got.ended(started)

    def _failed_first(self, pending: set[int]) -> set[int]:
        """Of the ranks that never replied, those that failed on their own: the launcher names
        them in its exit codes and then stops the rest (which, stopped a little later, would
        otherwise read as crashed too, by a race). All of them when it names none."""
        try:
            named = {int(rank) for rank in json.loads(self.read_file(EXITS, tail=4096) or "{}")}
        except (ValueError, TypeError):
            named = set()
        return (pending & named) or set(pending)

    def output(self, name: str, limit: int = OUTPUT_LIMIT) -> bytes | None:
        """The bytes of the file ``name`` the ranks left in the launch folder (None if there is
        none; at most ``limit`` bytes: a larger file gives its first ``limit``)."""
        path = os.path.join(self.dir, name)
        if not os.path.isfile(path) or os.path.islink(path):
            return None
        with open(path, "rb") as file:
            return file.read(limit)

    def dump_stacks(self, ranks: set[int], settle: float = 0.3) -> dict[int, str]:
        pids = self.pids
        for rank in ranks:
            if pids[rank]:
                try:
                    os.kill(pids[rank], signal.SIGUSR1)
                except ProcessLookupError:
                    pass
        time.sleep(settle)
        return {rank: self.read_file(f"stack-{rank}", tail=6000) for rank in ranks}

    def exit_reason(self, rank: int, wait_s: float = 2.0) -> str:
        """Why rank ``rank`` ended without a reply: its exit code as the launcher saw it."""
        end = time.monotonic() + wait_s
        while not os.path.exists(os.path.join(self.dir, EXITS)) and time.monotonic() < end:
            if self._agent_exited():
                break
            time.sleep(POLL_S)
        try:
            code = json.loads(self.read_file(EXITS, tail=4096) or "{}").get(str(rank))
        except ValueError:
            code = None
        if code is None:
            return "stopped answering"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with code {code}"

    def kill(self) -> None:
        if getattr(self, "agent", 0) and self.pgid:
            try:
                os.killpg(self.pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.fork_server.exit_statuses([self.agent], 1.0)  # reaped by the fork server
        self.agent = 0
        super().kill()
