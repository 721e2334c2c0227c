"""Misconceptions are named from the mutant library (``graders.misconceptions``).

A synthetic class of chapter 2 whose every student is one of the chapter's mutants: the mutant
itself must be among the misconceptions named for at least 90% of those the battery can tell from
the reference, and the reference solution, as a student, is named nothing.
"""

import pytest

from graders.catalog import CHAPTERS
from graders.misconceptions import matcher, mutants, teacher_view
from graders.misconceptions.shipped import catalogue, slim

pytestmark = pytest.mark.many_submissions


@pytest.fixture(scope="module")
def known(harness):
    exercises = {e.id for e in CHAPTERS["ch2"].exercises}
    found = teacher_view.known_batteries("ch2", exercises, harness)
    assert found.get("slim"), "the kit as it is: the shipped batteries, not a run"
    return found


def test_a_changed_kit_runs_the_batteries_and_they_agree_with_the_shipped(harness):
    """A teacher who changed a grader or a mutant gets batteries run in their process; on the
    kit as it is, those are the shipped ones (slimmed alike)."""
    exercise = "ch2.broadcast"
    ran = teacher_view._run_known("ch2", {exercise}, harness)
    shipped = teacher_view._shipped("ch2", {exercise})
    assert set(ran["mutants"][exercise]) == set(shipped["mutants"][exercise])
    for name, records in [("reference", ran["reference"][exercise]), *ran["mutants"][exercise].items()]:
        want = shipped["reference"][exercise] if name == "reference" else shipped["mutants"][exercise][name]
        both = set(records) & set(want)  # (a case or two may differ with what is imported)
        assert len(both) >= 0.75 * len(want), f"{name}: {len(both)} of {len(want)} cases alike"
        for key in both:
            assert matcher.agree(slim(records[key]), want[key]), f"{name} {key}"


def test_each_mutant_as_a_student_is_named(known):
    distinguishable, named, extra = 0, 0, []
    for exercise, library in known["mutants"].items():
        reference = known["reference"][exercise]
        for name, records in library.items():
            found = matcher.matching(records, reference, library)
            if not any(not matcher.agree(records[k], reference[k]) for k in records if k in reference):
                assert found == [], f"{name} behaves as the reference on the battery, yet names {found}"
                continue
            distinguishable += 1
            named += name in found
            extra += [n for n in found if n != name]
    assert distinguishable >= 40
    assert named / distinguishable >= 0.9, f"{named}/{distinguishable} mutants named"


def test_the_reference_as_a_student_is_named_nothing(known):
    for exercise, library in known["mutants"].items():
        assert matcher.matching(known["reference"][exercise], known["reference"][exercise], library) == []


def test_a_student_unlike_every_mutant_is_unrecognised(known):
    exercise = "ch2.broadcast"
    reference = known["reference"][exercise]
    odd = {key: {"failure": "hang"} for key in reference}
    assert matcher.matching(odd, reference, known["mutants"][exercise]) == []


def test_every_mutant_says_what_it_behaves_like_in_both_languages():
    for chapter in CHAPTERS:
        for m in mutants.load(chapter):
            assert m.description and m.description_vi and m.hint and m.hint_vi, f"{chapter}: {m.name}"
    sentence = catalogue("ch2")["broadcast_src_as_group_rank"]
    assert sentence.describe("en").startswith("Your broadcast behaves like one that ")
    assert sentence.describe("vi").startswith("broadcast của bạn chạy như thể nó ")


def test_records_agree_within_tolerance_only():
    a = {"values": [{"tensor": "torch.float32", "shape": [2], "values": [1.0, 2.0]}], "traffic": [[]]}
    close = {
        "values": [{"tensor": "torch.float32", "shape": [2], "values": [1.0000001, 2.0]}],
        "traffic": [[]],
    }
    far = {"values": [{"tensor": "torch.float32", "shape": [2], "values": [1.1, 2.0]}], "traffic": [[]]}
    assert matcher.agree(a, close) and not matcher.agree(a, far)
    assert not matcher.agree(a, {"failure": "hang"}) and matcher.agree(
        {"failure": "hang"}, {"failure": "hang"}
    )


def test_the_batterys_cache_key_ignores_edited_stubs(tmp_path, monkeypatch):
    """A teacher's working tree with an edited stub keeps the cached battery; a changed public
    grader, solution or mutant does not."""
    for folder in ("solutions/ch2", "exercises/ch2", "graders", "fixtures/mutants"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "solutions" / "ch2" / "collectives.py").write_text("def f(): return 1\n")
    (tmp_path / "exercises" / "ch2" / "collectives.py").write_text("def f(): raise NotImplementedError\n")
    (tmp_path / "exercises" / "ch2" / "test_collectives.py").write_text("def test_f(): pass\n")
    (tmp_path / "graders" / "__init__.py").write_text("")
    (tmp_path / "fixtures" / "mutants" / "ch2.toml").write_text("")
    monkeypatch.setattr(teacher_view, "KIT_ROOT", tmp_path)
    before = teacher_view.kit_digest("ch2")
    (tmp_path / "exercises" / "ch2" / "collectives.py").write_text("def f(): return 2  # my try\n")
    assert teacher_view.kit_digest("ch2") == before
    for changed in (
        "exercises/ch2/test_collectives.py",
        "solutions/ch2/collectives.py",
        "fixtures/mutants/ch2.toml",
    ):
        path = tmp_path / changed
        path.write_text(path.read_text() + "\n# changed\n")
        assert teacher_view.kit_digest("ch2") != before, changed
        before = teacher_view.kit_digest("ch2")
