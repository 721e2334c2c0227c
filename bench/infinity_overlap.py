"""ZeRO-Infinity's step with prefetch (the reference) against the same step reading each partition
only after writing the previous one back (the mutant ``infinity_reads_after_writing``), on one
rank, with the drive on a real folder.

.venv/bin/python bench/infinity_overlap.py [--mparams 4] [--partition 262144] [--steps 5]
    [--dir /tmp] [--drive-gbps 1]

Prints the median step time of each and what the drive moved per step. Files in a temporary
folder are read at the page cache's speed; ``--drive-gbps`` makes every read take at least its
bytes over that bandwidth (an NVMe drive reads 2-7 GB/s), waiting as a device does.
"""

from __future__ import annotations

import argparse
import importlib.util
import socket
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _variants(folder: Path) -> dict[str, Path]:
    from graders.misconceptions import mutants

    sequential = next(m for m in mutants.load("ch5") if m.name == "infinity_reads_after_writing")
    mutants.materialize(sequential, folder)
    return {"prefetch": ROOT / "solutions/ch5/infinity.py", "sequential": folder / "ch5/infinity.py"}


def _time_steps(module, args, drive_dir: str) -> tuple[float, int]:
    import torch

    from graders.training.swap_files import SwapFiles

    torch.manual_seed(0)
    width = int((args.mparams * 1e6 / 4) ** 0.5)
    model = torch.nn.Sequential(*(torch.nn.Linear(width, width) for _ in range(4)))
    files = SwapFiles(drive_dir, read_bytes_per_s=args.drive_gbps * 1e9 if args.drive_gbps else None)
    optimizer = module.InfinityOptimizer(
        model.parameters(), torch.optim.AdamW, files.drive(), partition_numel=args.partition, lr=1e-3
    )
    x = torch.randn(8, width)
    times = []
    for step in range(args.steps + 1):
        files.begin_step(step + 1)
        optimizer.zero_grad()
        model(x).square().mean().backward()
        started = time.perf_counter()
        optimizer.step()
        if step:  # the first step creates the state: not timed
            times.append(time.perf_counter() - started)
    moved = sum(e.nbytes for e in files.events if e.step == args.steps + 1)
    files.close()
    return statistics.median(times), moved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mparams", type=float, default=4.0, help="millions of parameters")
    parser.add_argument("--partition", type=int, default=262144, help="elements per partition")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--dir", default=None, help="where the drive's folders go (default: the temp dir)")
    parser.add_argument(
        "--drive-gbps",
        type=float,
        default=1.0,
        help="read bandwidth of the drive in GB/s (0: the page cache's)",
    )
    args = parser.parse_args()

    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1, timeout=timedelta(seconds=60)
    )
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        for name, path in _variants(Path(scratch) / "variants").items():
            drive_dir = Path(scratch) / name
            drive_dir.mkdir()
            seconds, moved = _time_steps(_load(path, f"infinity_{name}"), args, str(drive_dir))
            print(f"{name:<11} {seconds * 1e3:8.1f} ms per step   {moved / 1e6:6.1f} MB read + written")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
