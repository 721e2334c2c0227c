"""Save-to-verdict latency of `dtlab watch`, against a cold `pytest` of the same exercise.

.venv/bin/python bench/watch_latency.py [--saves 3] [--profile student] [--cases ch2 ch5]

Per case (ch2: ring_all_reduce; ch5: ZeRO-1) it copies the chapter's solutions to a temporary
folder, starts `dtlab watch chN EXERCISE --impl FOLDER`, waits for the first verdict, then saves
a wrong edit and the correct file back, in turn, `--saves` times each. A save is timed from the
write to the verdict line (the poll included), and the watch's own figure (from the moment it
saw the save) is shown beside it; then one cold `pytest exercises/chN -k EXERCISE` of the same
folder, for comparison.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: chapter -> (exercise, module, the correct line, the wrong edit of it)
CASES = {
    "ch2": (
        "ring_all_reduce",
        "collectives",
        "    for step in range(world - 1):  # all-gather: pass the finished chunks around the ring\n",
        "    for step in range(world - 2):  # all-gather: pass the finished chunks around the ring\n",
    ),
    "ch5": ("zero1", "zero", "        shard.set_grad(reduced)\n", "        shard.set_grad(reduced * 2)\n"),
}
VERDICT = re.compile(r"verdict ([\d.]+) s after the (save was seen|start)")


class Watch:
    def __init__(self, chapter: str, exercise: str, impl: str, profile: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_", "HYPOTHESIS_"))}
        env.update(PYTHONPATH=ROOT, PYTHONUNBUFFERED="1")
        command = [sys.executable, "-m", "graders", "watch", chapter, exercise, f"--impl={impl}"]
        self.proc = subprocess.Popen(
            [*command, f"--profile={profile}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def verdict(self, timeout: float = 600) -> tuple[float, str]:
        """``(the watch's own seconds, the points row)`` of the next verdict."""
        row, end = "", time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            if line is None:
                raise SystemExit("dtlab watch ended early")
            if re.match(r"ch\d\.\w+\s+\d+/\d+\s", line):
                row = " ".join(line.split())
            found = VERDICT.search(line)
            if found:
                return float(found.group(1)), row

    def stop(self) -> None:
        os.killpg(self.proc.pid, 2)  # Ctrl-C
        self.proc.wait(timeout=60)


def cold(chapter: str, exercise: str, impl: str, profile: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", f"exercises/{chapter}", f"--impl={impl}", "-k", exercise]
        + ["-q", "-p", "no:cacheprovider", f"--hypothesis-profile={profile}"],
        cwd=ROOT,
        capture_output=True,
    )
    return time.perf_counter() - started


def bench(chapter: str, saves: int, profile: str) -> None:
    exercise, module, good_line, bad_line = CASES[chapter]
    folder = tempfile.mkdtemp(prefix=f"dtlab-watch-bench-{chapter}-")
    try:
        impl = os.path.join(folder, chapter)
        shutil.copytree(os.path.join(ROOT, "solutions", chapter), impl)
        path = os.path.join(impl, f"{module}.py")
        good = open(path).read()
        assert good.count(good_line) == 1, good_line
        versions = {"wrong": good.replace(good_line, bad_line), "correct": good}
        started = time.perf_counter()
        watch = Watch(chapter, exercise, impl, profile)
        _, row = watch.verdict()
        first = time.perf_counter() - started
        print(f"{chapter}.{exercise}: first verdict {first:.1f} s after the start ({row})")
        timings: dict[str, list[tuple[float, float]]] = {"wrong": [], "correct": []}
        for _ in range(saves):
            for kind, text in versions.items():
                time.sleep(random.uniform(0.5, 1.0))  # not in step with the watch's poll
                saved = time.perf_counter()
                with open(path, "w") as f:
                    f.write(text)
                own, row = watch.verdict()
                seconds = time.perf_counter() - saved
                timings[kind].append((seconds, own))
                expected = "passed" if kind == "correct" else "failed"
                note = "" if expected in row else f"  UNEXPECTED: not {expected}"
                print(f"  {kind:<8} save -> verdict {seconds:.2f} s  (watch: {own:.2f} s)  {row}{note}")
        watch.stop()
        for kind, pairs in timings.items():
            print(
                f"  {kind:<8} median save -> verdict {statistics.median(p[0] for p in pairs):.2f} s "
                f"(watch's own figure {statistics.median(p[1] for p in pairs):.2f} s), {len(pairs)} saves"
            )
        seconds = cold(chapter, exercise, impl, profile)
        print(f"  cold `pytest exercises/{chapter} -k {exercise}` (correct): {seconds:.1f} s")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--saves", type=int, default=3)
    parser.add_argument("--profile", default="student")
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    args = parser.parse_args()
    for chapter in args.cases:
        bench(chapter, args.saves, args.profile)


if __name__ == "__main__":
    main()
