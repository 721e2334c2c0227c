"""Every mutant in fixtures/mutants is caught by the graders of its exercise.

A mutant is a small plausible bug in a reference solution. If no grader fails on it, the
check it was written against cannot fail, which is a defect of the kit.
"""

import pytest

from graders.authoring import mutants
from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT

ALL = [
    m
    for chapter in CHAPTERS
    for m in mutants.load(chapter)
    if (KIT_ROOT / "fixtures/mutants" / f"{chapter}.toml").exists()
]
_TESTS: dict[str, dict] = {}


def _tests(chapter):
    if chapter not in _TESTS:
        _TESTS[chapter] = mutants.exercise_tests(chapter)
    return _TESTS[chapter]


def test_every_exercise_has_three_mutants():
    for chapter in CHAPTERS.values():
        path = KIT_ROOT / "fixtures/mutants" / f"{chapter.id}.toml"
        if not path.exists():
            continue
        counts = {e.id: 0 for e in chapter.exercises}
        for m in mutants.load(chapter.id):
            counts[m.exercise] += 1
        assert all(n >= 3 for n in counts.values()), counts


@pytest.mark.parametrize("mutant", ALL, ids=lambda m: f"{m.exercise}:{m.name}")
def test_mutant_is_caught(mutant, harness, tmp_path):
    outcome = mutants.run_mutant(mutant, harness, tmp_path, _tests(mutant.chapter))
    assert outcome.caught, (
        f"{mutant.name} ({mutant.description}) survived; failed parts: {sorted(outcome.failed_parts)}"
    )
    for message in outcome.failed_parts.values():
        assert "Traceback" not in message
