"""A student's own run names the misconception their failing code behaves like.

Two mutants of chapter 2, each graded as a student's code is (``dtlab check``'s pytest, the
student profile): the block of the failing exercise says what the code behaves like and the
mutant's own hint, in English and in Vietnamese, before the example, and leaves the case's
hint out. Every chapter's shipped batteries are current (built from the files they say).
"""

import pytest

from graders import catalog
from graders.gradebook import Gradebook
from graders.misconceptions import mutants, shipped
from graders.plugin.run_spec import GradingRun
from graders.student import chapter_run, check

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

CASES = {
    # a ring all-reduce that forgets to divide for avg: its hint is about avg, not the phases
    "all_reduce_avg_never_divides": ("ring_all_reduce", "avg is the sum divided by the number of ranks"),
    # a global dst taken as a group rank: its hint names the group rank, not the neighbour formula
    "reduce_dst_as_group_rank": ("reduce", "dst is a global rank; in a subgroup"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Both mutants' edits in one chapter, graded once (their exercises only), as a student's run."""
    chosen = [m for m in mutants.load("ch2") if m.name in CASES]
    folder = tmp_path_factory.mktemp("mutants")
    mutants.materialize(chosen[0], folder)
    for mutant in chosen[1:]:  # the second mutant's edits, over the first's copy
        for edit in mutant.edits:
            path = folder / "ch2" / edit.file
            path.write_text(mutants.apply(path.read_text(), edit))
    exercises = tuple(m.exercise for m in chosen)
    run = chapter_run.grade(GradingRun(impl=folder / "ch2").with_defaults(), "ch2", exercises=exercises)
    return {m.name: m for m in chosen}, Gradebook.from_dict(run.book)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_failing_exercise_names_its_mutant_and_its_hint(name, graded):
    chosen, book = graded
    mutant = chosen[name]
    function, hint = CASES[name]
    assert book.named.get(mutant.exercise, {}).get("name") == name, book.named
    english = check.render(book, [mutant.exercise], lang="en")
    assert f"likely misconception: Your {function} behaves like one that {mutant.description}" in english
    assert hint in english
    said, example = english.index("likely misconception"), english.index("example:")
    assert said < example, "the misconception comes before the example"
    assert mutant.hint_vi in check.render(book, [mutant.exercise], lang="vi")


def test_every_chapters_shipped_batteries_are_current():
    assert shipped.stale(list(catalog.CHAPTERS)) == [], "run `dtlab battery` for these chapters"
