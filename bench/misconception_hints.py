"""How often a student's own run names the right misconception: every mutant of the library
graded as a student would be (its diagnostic battery against the chapter's shipped batteries).

.venv/bin/python bench/misconception_hints.py [ch2 ...]

A mutant counts as named when the closest known misconception shown for its exercise is its own,
or one the battery cannot tell from it (the same records on every case); it counts as missed
when another is shown or none (a mutant the battery cannot tell from the reference is missed
too). The figure per chapter is named / all mutants; the README quotes it. The student's path
(``graders.misconceptions.student_view.name_all``) runs the same battery on the student's code
and takes the same :meth:`Known.closest`; ``tests/student/test_misconception_hints.py`` runs it
for real on a few mutants.
"""

from __future__ import annotations

import sys

from graders import catalog
from graders.misconceptions import shipped
from graders.misconceptions.matcher import agree


def same_records(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(agree(a[k], b[k]) for k in a)


def figure(chapter: str) -> tuple[int, int, list[str]]:
    known = shipped.load(chapter)
    if known is None:
        return 0, 0, ["no shipped batteries: run `dtlab battery`"]
    named, total, missed = 0, 0, []
    for exercise, mutants in sorted(known.mutants.items()):
        for name in mutants:
            total += 1
            mine = known.records(exercise, name)
            shown = known.closest(exercise, mine)
            if shown is not None and (
                shown.name == name or same_records(known.records(exercise, shown.name), mine)
            ):
                named += 1
            else:
                missed.append(f"{name} → {shown.name if shown else 'nothing'}")
    return named, total, missed


def main() -> None:
    chapters = sys.argv[1:] or list(catalog.CHAPTERS)
    all_named = all_total = 0
    for chapter in chapters:
        named, total, missed = figure(chapter)
        all_named, all_total = all_named + named, all_total + total
        share = f"{100 * named / total:.0f}%" if total else "-"
        print(
            f"{chapter}: {named}/{total} named ({share})"
            + (f"; missed: {', '.join(missed)}" if missed else "")
        )
    if all_total:
        print(f"all: {all_named}/{all_total} ({100 * all_named / all_total:.1f}%)")


if __name__ == "__main__":
    main()
