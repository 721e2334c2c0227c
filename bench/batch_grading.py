"""Grade a class of N sample submissions of chapter 2 and report the batch's numbers.

.venv/bin/python bench/batch_grading.py [--students 20] [--jobs 2] [--profile grading]

The class cycles through the bundled samples (fixtures/submissions/ch2: correct, subtly wrong,
deadlocked, banned call, syntax error, gloo abort, monkeypatcher). Printed: wall time,
submissions per minute, and the per-submission overhead beyond the graders (a submission's
wall time minus the time its tests ran, as the driver measured it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--profile", default="grading")
    args = parser.parse_args()
    samples = sorted((ROOT / "fixtures/submissions/ch2").iterdir())
    with tempfile.TemporaryDirectory() as tmp:
        class_dir, out = Path(tmp) / "class", Path(tmp) / "out"
        for i in range(args.students):
            sample = samples[i % len(samples)]
            shutil.copytree(sample, class_dir / f"{sample.name}{i:02d}")
        start = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "graders", "grade", str(class_dir), "--chapter", "ch2", "--out", str(out)]
            + ["--jobs", str(args.jobs), "--profile", args.profile],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        wall = time.perf_counter() - start
        if run.returncode:
            sys.exit(run.stdout[-3000:] + run.stderr[-3000:])
        results = [json.loads(p.read_text())["result"] for p in (out / ".dtlab/results").glob("*.json")]
    overhead = [r["seconds"] - r["timing"]["tests_s"] for r in results if r["timing"]]
    graders = [r["timing"]["tests_s"] for r in results if r["timing"]]
    print(f"{args.students} submissions, --jobs {args.jobs}, profile {args.profile}, {os.cpu_count()} cores")
    print(f"wall {wall:.1f} s (command), {args.students / wall * 60:.1f} submissions/min")
    print(f"graders per submission: median {statistics.median(graders):.1f} s, max {max(graders):.1f} s")
    print(
        f"overhead beyond the graders per submission: median {statistics.median(overhead):.2f} s, "
        f"mean {statistics.mean(overhead):.2f} s, max {max(overhead):.2f} s"
    )
    print(run.stdout.split("\n\n")[-3] if "\n\n" in run.stdout else "")


if __name__ == "__main__":
    main()
