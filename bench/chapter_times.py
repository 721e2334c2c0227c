"""Wall time of `pytest exercises/chN` for the solutions and for the stubs, per chapter.

.venv/bin/python bench/chapter_times.py [ch2 ...] [--profile student]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    last = [
        line for line in run.stdout.splitlines() if " in " in line and ("passed" in line or "failed" in line)
    ]
    return time.perf_counter() - start, (last[-1] if last else run.stdout[-200:]).strip("= ")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("chapters", nargs="*")
    parser.add_argument("--profile", default="student")
    args = parser.parse_args()
    chapters = args.chapters or sorted(
        d for d in os.listdir(os.path.join(ROOT, "exercises")) if d.startswith("ch")
    )
    for chapter in chapters:
        for impl in ("solutions", "exercises"):
            seconds, summary = timed(
                [f"exercises/{chapter}", f"--impl={impl}", f"--hypothesis-profile={args.profile}"]
            )
            print(f"{chapter} --impl {impl:<10} {seconds:6.1f} s wall   ({summary})")


if __name__ == "__main__":
    main()
