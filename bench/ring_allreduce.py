"""The reference ring all-reduce against the backend's own ``all_reduce``, on whatever backend
this machine has: NCCL on GPUs (one per rank), gloo otherwise.

Bandwidths follow nccl-tests (PERFORMANCE.md): ``algbw = bytes / seconds`` and, for all-reduce,
``busbw = algbw · 2(n-1)/n``, the rate each link must sustain, comparable across world sizes.

.venv/bin/python bench/ring_allreduce.py [--backend auto|gloo|nccl] [--ranks 2 4] [--mib 1 16] [--iters 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import statistics
import sys
import time
from datetime import timedelta

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _reference():
    spec = importlib.util.spec_from_file_location(
        "reference", os.path.join(ROOT, "solutions/ch2/collectives.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _timed(fn, tensor, iters: int, sync) -> float:
    """Median seconds of ``fn`` on a fresh copy of ``tensor``, every rank starting together."""
    import torch.distributed as dist

    fn(tensor.clone())  # warm-up: connections, NCCL communicators
    runs = []
    for _ in range(iters):
        work = tensor.clone()
        sync()
        dist.barrier()
        start = time.perf_counter()
        fn(work)
        sync()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def _rank(rank, size, port, placement, sizes_mib, iters, results):
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo")
    device = torch.device(placement.device(rank))
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(
        placement.backend,
        rank=rank,
        world_size=size,
        timeout=timedelta(seconds=120),
        device_id=device if device.type == "cuda" else None,
    )
    reference = _reference()
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    for mib in sizes_mib:
        tensor = torch.randn(mib * 2**20 // 4, device=device)
        own = _timed(dist.all_reduce, tensor, iters, sync)
        ring = _timed(reference.ring_all_reduce, tensor, iters, sync)
        if rank == 0:
            results[mib] = (own, ring)
    dist.destroy_process_group()


COLUMNS = (
    "backend",
    "ranks",
    "MiB",
    "backend all_reduce ms",
    "algbw / busbw GB/s",
    "reference ring ms",
    "algbw / busbw GB/s",
    "ring / backend",
)


def bus_bandwidth(nbytes: int, seconds: float, n: int) -> tuple[float, float]:
    """(algbw, busbw) in GB/s of an all-reduce of ``nbytes`` on ``n`` ranks."""
    algbw = nbytes / seconds / 1e9
    return algbw, algbw * 2 * (n - 1) / n


def main() -> None:
    import torch.multiprocessing as mp

    from graders.world.backend import NeedsHardware, gpu_count, place

    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="auto", choices=("auto", "gloo", "nccl"))
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--mib", type=int, nargs="+", default=[16])
    parser.add_argument("--iters", type=int, default=5)
    args = parser.parse_args()
    manager = mp.Manager()
    gpus = gpu_count()
    print(f"| {' | '.join(COLUMNS)} |")
    print(f"| {' | '.join('---' for _ in COLUMNS)} |")
    for size in args.ranks:
        try:
            placement = place(args.backend, size, gpus)
        except NeedsHardware as exc:
            print(f"| nccl | {size} | - | skipped: {exc} | | | | |")
            continue
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        results = manager.dict()
        mp.spawn(_rank, args=(size, port, placement, args.mib, args.iters, results), nprocs=size, join=True)
        for mib in args.mib:
            own, ring = results[mib]
            nbytes = mib * 2**20
            own_bw, ring_bw = bus_bandwidth(nbytes, own, size), bus_bandwidth(nbytes, ring, size)
            cells = [placement.backend, size, mib, f"{own * 1e3:.2f}", f"{own_bw[0]:.2f} / {own_bw[1]:.2f}"]
            cells += [f"{ring * 1e3:.2f}", f"{ring_bw[0]:.2f} / {ring_bw[1]:.2f}", f"{ring / own:.2f}x"]
            print(f"| {' | '.join(map(str, cells))} |")


if __name__ == "__main__":
    main()
