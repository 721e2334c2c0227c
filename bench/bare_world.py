"""The floor a live world is held against: a bare persistent gloo world.

The driver pipes a task to every rank, each rank does one tiny ``all_reduce`` and replies. No
guard, ledger, recorder, student import or reset: what any persistent multi-process world must
pay per example on this machine. ``bench/world_overhead.py`` measures it in the same run as the
kit's live world, with the same kind of IPC (a pipe per rank, pickled messages).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import socket
import time
from datetime import timedelta


def _rank(rank: int, size: int, port: int, pipe) -> None:
    import torch
    import torch.distributed as dist

    store = dist.TCPStore("127.0.0.1", port, size, is_master=rank == 0, timeout=timedelta(seconds=60))
    dist.init_process_group("gloo", store=store, rank=rank, world_size=size)
    tensor = torch.zeros(1)
    while True:
        task = pipe.recv()
        if task is None:
            break
        tensor.fill_(float(rank))
        dist.all_reduce(tensor)
        pipe.send({"rank": rank, "value": tensor.item(), "task": task})
    dist.destroy_process_group()


class BareWorld:
    """``size`` forked processes in one gloo world, each answering tasks over its own pipe."""

    def __init__(self, size: int):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        context = mp.get_context("fork")
        self.pipes, self.processes = [], []
        for rank in range(size):
            ours, theirs = context.Pipe()
            process = context.Process(target=_rank, args=(rank, size, port, theirs), daemon=True)
            process.start()
            self.pipes.append(ours)
            self.processes.append(process)

    def run(self, task) -> list:
        for pipe in self.pipes:
            pipe.send(task)
        return [pipe.recv() for pipe in self.pipes]

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(None)
        for process in self.processes:
            process.join(timeout=10)


def per_example(size: int, examples: int, warmup: int = 20) -> list[float]:
    """Seconds of each of ``examples`` examples on a bare world of ``size`` ranks."""
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    world = BareWorld(size)
    try:
        for i in range(warmup):
            world.run(("example", i))
        times = []
        for i in range(examples):
            start = time.perf_counter()
            world.run(("example", i))
            times.append(time.perf_counter() - start)
        return times
    finally:
        world.close()
