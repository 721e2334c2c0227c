"""The reference ring all-reduce vs. gloo's built-in all_reduce on 16 MiB of float32.

.venv/bin/python bench/ring_allreduce.py [--ranks 2 4] [--mib 16] [--iters 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import statistics
import time
from datetime import timedelta

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rank(rank, size, port, numel, iters, results):
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo")
    dist.init_process_group("gloo", rank=rank, world_size=size, timeout=timedelta(seconds=120))
    spec = importlib.util.spec_from_file_location(
        "reference", os.path.join(ROOT, "solutions/ch2/collectives.py")
    )
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    tensor = torch.randn(numel)
    timings = {}
    for name, fn in (
        ("gloo all_reduce", dist.all_reduce),
        ("reference ring_all_reduce", reference.ring_all_reduce),
    ):
        fn(tensor.clone())
        runs = []
        for _ in range(iters):
            work = tensor.clone()
            dist.barrier()
            start = time.perf_counter()
            fn(work)
            runs.append(time.perf_counter() - start)
        timings[name] = statistics.median(runs)
    if rank == 0:
        results.update(timings)
    dist.destroy_process_group()


def main() -> None:
    import torch.multiprocessing as mp

    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--mib", type=int, default=16)
    parser.add_argument("--iters", type=int, default=5)
    args = parser.parse_args()
    numel = args.mib * 2**20 // 4
    manager = mp.Manager()
    for size in args.ranks:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        results = manager.dict()
        mp.spawn(_rank, args=(size, port, numel, args.iters, results), nprocs=size, join=True)
        gloo, ring = results["gloo all_reduce"], results["reference ring_all_reduce"]
        print(
            f"{size} ranks, {args.mib} MiB float32: gloo {gloo * 1e3:.1f} ms, "
            f"reference ring {ring * 1e3:.1f} ms ({ring / gloo:.2f}x gloo)"
        )


if __name__ == "__main__":
    main()
