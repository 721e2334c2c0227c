"""The student's view: the misconception a student's own run names for a failing exercise.

Once a run is graded (``pytest``, ``dtlab check``, ``dtlab watch``), each failing exercise whose
chapter ships known misconceptions (:mod:`graders.misconceptions.shipped`) has its battery run on
the student's code and the closest known mutant is named, with its hint, in every language
(``book.named``: the end of the run says it, ``dtlab check`` before the example). A batch's run
(``--dtlab-diagnose``) keeps the batteries instead, for the teacher's view
(:mod:`graders.misconceptions.teacher_view`).
"""

from __future__ import annotations

from graders.misconceptions import battery
from graders.misconceptions.shipped import load
from graders.words.vocabulary import LANGS


def name_all(book, harness, impl) -> None:
    """For each failing exercise of ``book`` whose chapter ships known misconceptions, the closest
    one its code behaves like, into ``book.named`` (the student's own run: ``pytest``, ``dtlab
    check``, ``dtlab watch``)."""
    tests: dict[str, dict] = {}
    for exercise_id in battery.failing_exercises(book):
        chapter = exercise_id.split(".")[0]
        known = load(chapter)
        if known is None or exercise_id not in known.reference:
            continue
        if chapter not in tests:
            tests[chapter] = battery.battery_tests(chapter)
        found = known.closest(exercise_id, battery.run_battery(impl, harness, exercise_id, tests[chapter]))
        if found is not None:
            book.named[exercise_id] = {
                "name": found.name,
                "said": {lang: found.describe(lang) for lang in LANGS},
            }


def after_grading(book, harness, impl, diagnosed: dict | None) -> None:
    """What a run does about its failing exercises once graded: a batch's run (``diagnosed``: the
    battery tests of ``--dtlab-diagnose``) keeps their batteries for the teacher's naming; a
    student's run names their misconceptions at once (:func:`name_all`)."""
    if diagnosed is not None:
        battery.diagnose(book, harness, impl, diagnosed)
    else:
        name_all(book, harness, impl)
