"""Driver side of a torchrun-launched world: worlds whose ranks are other machines' processes.

``torchrun --nnodes … --nproc-per-node … -m graders.run chN`` starts one *rank host*
(:mod:`graders.world.job.rank_host`) per process; rank 0's also starts the driver, a pytest that
grades the chapter exactly as ``pytest exercises/chN`` does, except that its worlds are made of
the hosts' processes. Everything goes through the job's own rendezvous store (torchrun's
``MASTER_ADDR:MASTER_PORT``), so a multi-node cluster needs no other port:

* ``cmd/<n>``: the driver's commands, read by every host in order (spawn a world, a task, kill
  a world, a probe, exit); pickled, as the driver's messages to its forked ranks are;
* ``w<id>/out/<rank>/<i>``: what rank ``rank`` of world ``id`` sent, in order (its ready
  message, then one reply per task, in the restricted wire format), or that its channel closed;
* ``probe/<id>/<rank>``: a host's answer to a probe (a file's tail, a Python stack, an exit);
* ``hosts/<rank>``: what each host has (its local rank, its GPUs).

:class:`RemoteWorld` is a :class:`~graders.world.process_world.ProcessWorld` to the pool: the
same ``send``, ``collect`` with a deadline, status boards, notes, stacks and exit reasons for
the reports, and ``kill`` when a task broke it. A world of N ranks runs on the job's ranks
0 … N-1, in a process group of its own; a case needing more ranks than were launched is
skipped (``needs ≥ N processes``).
"""

from __future__ import annotations

import json
import pickle
import re
import time
from datetime import timedelta

from graders.errors import WorldStartError
from graders.world.backend import NeedsHardware, Placement, place
from graders.world.process_world import Collected

PREFIX = "dtlab"
POLL_S = 0.002
PROBE_WAIT_S = 10.0
MESSAGE, CLOSED = b"M", b"C"


def connect_store(host: str, port: int, timeout_s: float = 120.0):
    """A client of the job's store, its keys under ``dtlab/``."""
    import torch.distributed as dist

    store = dist.TCPStore(host, port, is_master=False, timeout=timedelta(seconds=timeout_s))
    return dist.PrefixStore(PREFIX, store)


def post_command(store, command: dict) -> None:
    """Append ``command`` to what every host carries out, in order (numbered by the store, so
    that rank 0's host can append the last ``exit`` after a driver that died)."""
    number = store.add("cmd_count", 1) - 1
    store.set(f"cmd/{number}", pickle.dumps(command, protocol=pickle.HIGHEST_PROTOCOL))


def end_every_host(store) -> None:
    """``exit`` after whatever was posted, and in every place a command was numbered for but
    never written (by a driver that died in between)."""
    post_command(store, {"op": "exit"})
    for number in range(store.add("cmd_count", 0)):
        if not store.check([f"cmd/{number}"]):
            store.set(f"cmd/{number}", pickle.dumps({"op": "exit"}))


class Cluster:
    """The driver's handle on the rank hosts of a torchrun-launched job."""

    def __init__(self, store, world_size: int, hosts: list[dict]) -> None:
        self.store = store
        self.world_size = world_size
        self.hosts = hosts
        self._worlds = 0
        self._probes = 0

    @classmethod
    def connect(cls, spec: str) -> Cluster:
        """``spec`` is ``host:port:world_size``, as :mod:`graders.run` sets it for its driver."""
        host, port, size = spec.rsplit(":", 2)
        store = connect_store(host, int(port))
        keys = [f"hosts/{rank}" for rank in range(int(size))]
        store.wait(keys, timedelta(seconds=300))
        return cls(store, int(size), [json.loads(store.get(key)) for key in keys])

    def command(self, command: dict) -> None:
        post_command(self.store, command)

    def new_world(self) -> int:
        self._worlds += 1
        return self._worlds

    def placement(self, requested: str, size: int) -> Placement:
        """A world of ``size`` of the job's ranks: NCCL where each of them has its own GPU (its
        local rank's), as :func:`graders.world.backend.place` decides for one machine."""
        if size > self.world_size:
            raise NeedsHardware(f"needs ≥ {size} processes (torchrun launched {self.world_size})")
        members = self.hosts[:size]
        own_gpu = all(host["local_rank"] < host["gpus"] for host in members)
        chosen = place(requested, size, size if own_gpu else 0)
        if chosen.backend != "nccl":
            return chosen
        return Placement("nccl", chosen.gpus, tuple(f"cuda:{host['local_rank']}" for host in members))

    def probe(self, world: int, ranks: list[int], what: str, **details) -> dict[int, str]:
        """Ask the hosts of ``ranks`` about their rank of ``world``; what each answered ("" if
        it did not within a few seconds)."""
        self._probes += 1
        probe_id = self._probes
        self.command({"op": "probe", "world": world, "id": probe_id, "ranks": ranks, "what": what, **details})
        answers, end = {}, time.monotonic() + PROBE_WAIT_S + details.get("settle", 0) + details.get("wait", 0)
        pending = set(ranks)
        while pending and time.monotonic() < end:
            for rank in sorted(pending):
                key = f"probe/{probe_id}/{rank}"
                if self.store.check([key]):
                    answers[rank] = pickle.loads(self.store.get(key))
                    self.store.delete_key(key)
                    pending.discard(rank)
            time.sleep(POLL_S)
        return {rank: answers.get(rank, "") for rank in ranks}

    def close(self) -> None:
        self.command_if_alive({"op": "exit"})

    def command_if_alive(self, command: dict) -> None:
        """A command that matters only while the job lives: a job torchrun already ended (a
        rank host failed) has no store left to post it to, and nothing left to stop."""
        try:
            self.command(command)
        except RuntimeError:  # torch's DistNetworkError and DistStoreError are RuntimeErrors
            pass


class RemoteWorld:
    """A world of ``size`` of the job's ranks, as the pool uses a :class:`ProcessWorld`."""

    def __init__(self, size: int, cluster: Cluster, placement: Placement, pg_timeout: float = 30.0) -> None:
        self.size = size
        self.cluster = cluster
        self.placement = placement
        self.pg_timeout = pg_timeout
        self.id = 0
        self.ready = False
        self._read = [0] * size

    def start(self) -> None:
        self.id = self.cluster.new_world()
        command = {"op": "spawn", "world": self.id, "size": self.size, "pg_timeout": self.pg_timeout}
        self.cluster.command({**command, "placement": self.placement})

    def _next(self, rank: int) -> bytes | None:
        """Rank ``rank``'s next message (``CLOSED`` once its channel closed), or None."""
        key = f"w{self.id}/out/{rank}/{self._read[rank]}"
        if not self.cluster.store.check([key]):
            return None
        data = self.cluster.store.get(key)
        self.cluster.store.delete_key(key)
        self._read[rank] += 1
        return data[1:] if data[:1] == MESSAGE else CLOSED

    def wait_ready(self, timeout: float = 120.0) -> None:
        from graders.world import wire

        if self.ready:
            return
        pending, end = set(range(self.size)), time.monotonic() + timeout
        while pending:
            for rank in sorted(pending):
                data = self._next(rank)
                if data is None:
                    continue
                pending.discard(rank)
                if data == CLOSED:
                    log = self.read_file(f"log-{rank}", tail=3000)
                    self.kill()
                    raise WorldStartError(f"rank {rank} of a world of {self.size} failed to start:\n{log}")
                wire.decode(data)
            if pending and time.monotonic() > end:
                self.kill()
                raise WorldStartError(f"world of {self.size} did not start within {timeout:.0f} s")
            time.sleep(POLL_S)
        self.ready = True

    def send(self, message: dict) -> None:
        payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self.cluster.command({"op": "task", "world": self.id, "payload": payload})

    def collect(self, deadline: float, grace: float) -> Collected:
        """As :meth:`ProcessWorld.collect`: every rank's reply until ``deadline``, and ``grace``
        more seconds for the others once one failed."""

        started = time.monotonic()
        end = started + deadline
        got = Collected.waiting_for(self.size)
        while got.pending and time.monotonic() < got.limit(end, grace):
            for rank in sorted(got.pending):
                data = self._next(rank)
                if data == CLOSED:
                    got.closed(rank)
                elif data is not None:
                    got.take(rank, data)
            time.sleep(POLL_S)
        return got.ended(started)

    # -- post-mortem, from the hosts ------------------------------------------------------------
    def read_file(self, name: str, tail: int = 4000) -> str:
        """The tail of a file of the world's folder on the host of the rank it names
        (``log-2``, ``status-0``)."""
        found = re.search(r"-(\d+)$", name)
        rank = int(found.group(1)) if found else 0
        return self.cluster.probe(self.id, [rank], "file", name=name, tail=tail)[rank]

    def status(self, rank: int) -> str:
        return self.read_file(f"status-{rank}", tail=1024).strip()

    def note(self, rank: int) -> str:
        return self.read_file(f"note-{rank}", tail=1024).strip()

    def dump_stacks(self, ranks: set[int], settle: float = 0.3) -> dict[int, str]:
        return self.cluster.probe(self.id, sorted(ranks), "stacks", settle=settle)

    def exit_reason(self, rank: int, wait_s: float = 2.0) -> str:
        return self.cluster.probe(self.id, [rank], "exit", wait=wait_s)[rank] or "stopped answering"

    def kill(self) -> None:
        if self.id:
            self.cluster.command_if_alive({"op": "kill", "world": self.id})
        self.id, self.ready, self._read = 0, False, [0] * self.size

    def close(self) -> None:
        self.kill()
