"""Misconception recall on a synthetic class, and what the diagnostic battery costs.

.venv/bin/python bench/misconceptions.py [ch2 ch5 ...]

Every mutant of the chapter is one student. Printed per chapter: how many mutants the battery
tells from the reference, how many of those are named (the mutant among the misconceptions its
behaviour matches), how many other names come with them, whether the reference solution is named
anything, and the battery's time per exercise (what a failing exercise adds to a submission's
grading) against the time the chapter's graders take on the reference (`pytest exercises/chN`).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graders.catalog import CHAPTERS  # noqa: E402
from graders.impl import KIT_ROOT, Impl  # noqa: E402
from graders.misconceptions import battery, matcher, mutants  # noqa: E402
from graders.plugin.harness import Harness  # noqa: E402
from graders.world.pool import WorldPool  # noqa: E402


def measure(chapter: str, harness) -> None:
    tests = battery.battery_tests(chapter)
    reference = Impl.resolve(KIT_ROOT / "solutions")
    seconds, known = [], {}
    for exercise in CHAPTERS[chapter].exercises:
        start = time.perf_counter()
        known[exercise.id] = {"reference": battery.run_battery(reference, harness, exercise.id, tests)}
        seconds.append(time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        for m in mutants.load(chapter):
            impl = Impl.resolve(mutants.materialize(m, Path(tmp) / m.name))
            known[m.exercise][m.name] = battery.run_battery(impl, harness, m.exercise, tests)
    distinguishable = named = extra = wrong_for_reference = 0
    for records in known.values():
        reference = records.pop("reference")
        wrong_for_reference += bool(matcher.matching(reference, reference, records))
        for name, record in records.items():
            if all(matcher.agree(record[k], reference[k]) for k in record if k in reference):
                continue
            distinguishable += 1
            found = matcher.matching(record, reference, records)
            named += name in found
            extra += len([n for n in found if n != name])
    print(
        f"{chapter}: {named}/{distinguishable} distinguishable mutants named "
        f"({named / max(distinguishable, 1):.0%}), {extra} other names alongside, "
        f"reference named: {wrong_for_reference}; battery per exercise on the reference "
        f"median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s"
    )


def main() -> None:
    chapters = sys.argv[1:] or ["ch2"]
    pool = WorldPool(deadline=5.0)
    pool.warm_up()
    try:
        for chapter in chapters:
            measure(chapter, Harness(pool))
    finally:
        pool.close()


if __name__ == "__main__":
    main()
