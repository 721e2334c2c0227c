"""Per-example overhead of a property: a live persistent world vs. spawning a world per example.

Live world: one example = the driver sends a task to every rank of a running world (the path a
hypothesis property takes: static scan, task message, student import, reset, reply, decode).
Spawn per example: the ``mp.spawn``-per-test pattern, a fresh gloo world for every example.

    .venv/bin/python bench/world_overhead.py [--examples 200] [--spawns 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def live_world(sizes, examples):
    from graders.impl import KIT_ROOT, Impl
    from graders.world.pool import WorldPool
    from tests.world import probe_tasks as probe

    pool = WorldPool()
    impl = Impl.resolve(KIT_ROOT / "fixtures" / "probes")
    results = {}
    for size in sizes:
        case = probe.ProbeCase(size, "noop")
        for _ in range(20):  # warm up: world start, first imports
            pool.run(probe.call, impl, case)
        times = []
        for _ in range(examples):
            start = time.perf_counter()
            pool.run(probe.call, impl, case)
            times.append(time.perf_counter() - start)
        results[size] = statistics.median(times)
    pool.close()
    return results


def _spawned_rank(rank, size, port):
    import torch
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo")
    dist.init_process_group("gloo", rank=rank, world_size=size, timeout=timedelta(seconds=60))
    torch.tensor([rank])  # the example's "work"
    dist.destroy_process_group()


def spawn_per_example(sizes, spawns):
    import socket

    import torch.multiprocessing as mp

    results = {}
    for size in sizes:
        times = []
        for _ in range(spawns):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            start = time.perf_counter()
            mp.spawn(_spawned_rank, args=(size, port), nprocs=size, join=True)
            times.append(time.perf_counter() - start)
        results[size] = statistics.median(times)
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--spawns", type=int, default=3)
    args = parser.parse_args()
    sizes = (2, 4)
    live = live_world(sizes, args.examples)
    spawned = spawn_per_example(sizes, args.spawns)
    print(f"{'ranks':>5}  {'live world / example':>22}  {'spawn per example':>18}  {'ratio':>7}")
    for size in sizes:
        print(
            f"{size:>5}  {live[size] * 1e3:>19.2f} ms  {spawned[size]:>16.2f} s"
            f"  {spawned[size] / live[size]:>6.0f}x"
        )


if __name__ == "__main__":
    main()
