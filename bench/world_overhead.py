"""Per-example overhead of a property: the kit's live world against its floor, and against
spawning a world per example.

Live world: one example = the driver sends a task to every rank of a running world (the path a
hypothesis property takes: static scan, task message, student import, guard, recorder, live
ledger, reset, reply, decode); the task does one tiny ``all_reduce``. Floor: a bare persistent
gloo world doing the same (``bench/bare_world.py``), measured in the same run, in alternating
rounds so that the machine's drift falls on both alike. Spawn per example: the
``mp.spawn``-per-test pattern, a fresh gloo world for every example.

    .venv/bin/python bench/world_overhead.py [--examples 300] [--rounds 3] [--spawns 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: the probe each live example runs (``fixtures/probes/probe.py``)
PROBE_FN = "tiny_all_reduce"


def live_world(pool, size, examples, warmup=20):
    """Seconds of each example of the kit's live world: the probe under the guard, the recorder
    and the live ledger (``call_measured``)."""
    from graders.impl import KIT_ROOT, Impl
    from tests.world import probe_tasks as probe

    impl = Impl.resolve(KIT_ROOT / "fixtures" / "probes")
    case = probe.ProbeCase(size, PROBE_FN)
    for _ in range(warmup):  # world start, first imports
        pool.run(probe.call_measured, impl, case)
    times = []
    for _ in range(examples):
        start = time.perf_counter()
        outcome = pool.run(probe.call_measured, impl, case)
        times.append(time.perf_counter() - start)
    expected = float(sum(range(size)))
    assert all(v["value"] == expected for v in outcome.values), outcome.values
    return times


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
    parser.add_argument("--examples", type=int, default=300, help="examples per round and world")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of floor and live world")
    parser.add_argument("--spawns", type=int, default=3, help="0: skip the spawn-per-example figure")
    args = parser.parse_args()

    from bench import bare_world
    from graders.world.pool import WorldPool

    sizes = (2, 4)
    floor = {size: [] for size in sizes}
    live = {size: [] for size in sizes}
    pool = WorldPool()
    try:
        for _ in range(args.rounds):
            for size in sizes:
                floor[size].append(statistics.median(bare_world.per_example(size, args.examples)))
                live[size].append(statistics.median(live_world(pool, size, args.examples)))
    finally:
        pool.close()
    spawned = spawn_per_example(sizes, args.spawns) if args.spawns else {}
    print(f"{'ranks':>5}  {'floor / example':>16}  {'live world':>11}  {'live / floor':>12}  {'spawn':>8}")
    for size in sizes:
        bare, ours = statistics.median(floor[size]), statistics.median(live[size])
        ratios = ", ".join(f"{o / f:.2f}" for f, o in zip(floor[size], live[size], strict=True))
        spawn = f"{spawned[size]:>6.2f} s" if spawned else ""
        print(
            f"{size:>5}  {bare * 1e3:>13.2f} ms  {ours * 1e3:>8.2f} ms  {ours / bare:>11.2f}x  {spawn}"
            f"   (rounds: {ratios})"
        )


if __name__ == "__main__":
    main()
