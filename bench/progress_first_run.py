"""Wall time of a first ``dtlab progress`` (no progress file yet): the stubs, then the solutions.

.venv/bin/python bench/progress_first_run.py [--runs N]

The stubs are "not started" by their digest (nothing is graded); the solutions are graded in
two pytest sessions side by side, each grading several chapters with one world pool.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first_run(impl: str) -> tuple[float, str]:
    with tempfile.TemporaryDirectory(prefix="dtlab-bench-") as tmp:
        argv = [sys.executable, "-m", "graders", "progress", "--impl", impl, "--state", f"{tmp}/p.json"]
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - start
    total = [line for line in done.stdout.splitlines() if line.startswith("total")]
    return seconds, (total[0] if total else done.stdout[-300:] + done.stderr[-300:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    for impl in ("exercises", "solutions"):
        for _ in range(args.runs):
            seconds, total = first_run(impl)
            print(
                f"first dtlab progress --impl {impl:<10} {seconds:7.2f} s wall   ({' '.join(total.split())})"
            )


if __name__ == "__main__":
    main()
