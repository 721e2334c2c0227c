"""Every mutant in fixtures/mutants is caught by the graders of its exercise, and every part
of every exercise has a mutant that fails it.

A mutant is a small plausible bug in a reference solution. If no grader fails on it, the
check it was written against cannot fail, which is a defect of the kit. A mutant marked
``alone`` fails its part and passes every other part of its exercise: the part's own check
caught it. Each part has such a mutant unless its chapter's ``[not_alone]`` table says why
none can exist.
"""

import pytest

from graders.catalog import CHAPTERS, EXERCISES
from graders.misconceptions import mutants
from graders.plugin.profiles import MUTANTS_PROFILE

pytestmark = pytest.mark.many_submissions

ALL = [m for chapter in CHAPTERS for m in mutants.load(chapter) if mutants.path_of(chapter).exists()]
PARTS = [(e.id, part) for chapter in CHAPTERS.values() for e in chapter.exercises for part in e.parts]
_TESTS: dict[tuple[str, str | None], dict] = {}


def _tests(chapter, profile=None):
    """The graders of ``chapter`` with the active profile, or with ``profile``."""
    if (chapter, profile) not in _TESTS:
        _TESTS[(chapter, profile)] = mutants.exercise_tests(chapter, profile=profile)
    return _TESTS[(chapter, profile)]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_exercise_has_three_mutants(chapter):
    assert mutants.path_of(chapter).exists(), f"{chapter} has no fixtures/mutants/{chapter}.toml"
    counts = {e.id: 0 for e in CHAPTERS[chapter].exercises}
    for m in mutants.load(chapter):
        counts[m.exercise] += 1
    assert all(n >= 3 for n in counts.values()), counts


@pytest.mark.parametrize("exercise_id, part", PARTS, ids=[f"{e}.{p}" for e, p in PARTS])
def test_every_part_has_a_mutant_that_fails_it(exercise_id, part):
    chapter = exercise_id.split(".")[0]
    mine = [m for m in ALL if m.exercise == exercise_id and m.part == part]
    assert mine, f"no mutant in fixtures/mutants/{chapter}.toml declares part = {part!r} of {exercise_id}"
    reason = mutants.not_alone(chapter).get(f"{exercise_id}.{part}")
    single_part = len(EXERCISES[exercise_id].parts) == 1  # nothing else to pass
    alone = [m.name for m in mine if m.alone or single_part]
    if reason is None:
        assert alone, (
            f"no mutant fails {exercise_id} [{part}] alone: add one with alone = true, or say in "
            f"[not_alone] of {chapter}.toml why none can"
        )
    else:
        assert reason.strip() and not alone, f"{exercise_id}.{part} is in [not_alone] but has {alone}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_not_alone_names_real_parts(chapter):
    for key in mutants.not_alone(chapter):
        exercise_id, _, part = key.rpartition(".")
        assert (exercise_id, part) in PARTS, f"[not_alone] of {chapter}.toml: no part {key}"


@pytest.mark.parametrize("mutant", ALL, ids=lambda m: f"{m.exercise}:{m.name}")
def test_mutant_is_caught(mutant, harness, tmp_path):
    """The part it must fail is graded with the active profile; the parts an ``alone`` mutant
    must pass, with the lighter ``mutants`` profile (explicit edge cases, then 5 examples)."""
    others = _tests(mutant.chapter, MUTANTS_PROFILE) if mutant.alone else None
    outcome = mutants.run_mutant(mutant, harness, tmp_path, _tests(mutant.chapter), others)
    assert outcome.caught, (
        f"{mutant.name} ({mutant.description}) survived; failed parts: {sorted(outcome.failed_parts)}"
    )
    for message in outcome.failed_parts.values():
        assert "Traceback" not in message
    if mutant.alone:
        others = {p: m for p, m in outcome.failed_parts.items() if p != mutant.part}
        assert not others, f"{mutant.name} should fail only {mutant.part}, but also fails {others}"
