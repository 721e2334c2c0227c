"""Red-team samples: honest alternatives keep full marks, determined cheats lose their part.

Every sample in ``fixtures/submissions/chN/<name>/`` is a complete submission of one exercise,
written from the exercise's docstrings and README (never from ``solutions/``). An *honest*
sample solves the exercise another way than the reference does and must earn every part. A
*cheat* gets the right values while skipping what the lesson is about; it must lose the parts
named in its row, each with a message that says what was found.

A row whose verdict is wrong today (a cheat that keeps credit, an honest sample that loses
points) is marked ``xfail`` (strict) with what the graders get wrong: when the graders are
fixed, the row starts passing and the mark must go.

The rows are data: each chapter of the catalogue with samples has a ``verdicts.toml`` next to
them (its format is said at its top; ``fixtures/submissions/messages.toml`` names the message
fragments several rows look for). Chapter 2's samples and rows live in
``fixtures/submissions/ch2/_redteam/``: ``dtlab grade`` skips folders whose name starts with
``_``, so ``tests/grading/test_samples.py``'s class of students is unchanged.

A cheat is graded on the parts it must lose only (the others do not change its verdict), with
the active profile; an honest sample on every part, with the lighter ``mutants`` profile (its
explicit edge cases, then 5 examples). A cheat the static scan stops is graded again with the
runtime guard alone, which must stop it too, with the message of its row. Run with
``--hypothesis-profile ci --dtlab-deadline 5``.
"""

from __future__ import annotations

import fnmatch
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT, Impl
from graders.misconceptions import mutants
from graders.plugin.profiles import MUTANTS_PROFILE

pytestmark = pytest.mark.many_submissions

SAMPLES = KIT_ROOT / "fixtures" / "submissions"
MESSAGES = SAMPLES / "messages.toml"
FULL = "full marks"
SCANNED = "goes around the graders' guard"  # the static scan's verdict


@dataclass(frozen=True)
class Verdict:
    """A sample, its exercise, and what grading it must give: ``FULL`` or ``{part: fragment}``
    (each part must fail, its message must contain the fragment, or one of a tuple of them)."""

    sample: str  # "ch5/zero1_greedy": a folder under fixtures/submissions
    exercise: str  # "ch5.zero1"
    expected: str | dict[str, str]
    marks: tuple = ()
    static_only: bool = False  # only the static scan sees it (memory outside storages, sys.modules)


def red_team(chapter: str) -> Path:
    """The folder of a chapter's red-team samples and their ``verdicts.toml``: ``chN/_redteam/``
    where the chapter's folder is a class of students (chapter 2's), else ``chN/``."""
    folder = SAMPLES / chapter
    return folder / "_redteam" if (folder / "_redteam").is_dir() else folder


_KEYS = {"sample", "exercise", "expected", "static_only", "xfail"}


def verdicts(chapter: str) -> list[Verdict]:
    """The rows of ``chapter``'s ``verdicts.toml`` (none without one: a chapter with no samples)."""
    folder = red_team(chapter)
    path = folder / "verdicts.toml"
    if not path.is_file():
        return []
    messages = tomllib.loads(MESSAGES.read_text())
    rows = []
    for entry in tomllib.loads(path.read_text())["verdict"]:
        assert set(entry) <= _KEYS, f"{path}: {sorted(set(entry) - _KEYS)} in {entry}"
        expected = entry["expected"]
        if expected != FULL:
            expected = {
                part: tuple(f.format_map(messages) for f in said)
                if isinstance(said, list)
                else said.format_map(messages)
                for part, said in expected.items()
            }
        marks = (pytest.mark.xfail(strict=True, reason=entry["xfail"]),) if "xfail" in entry else ()
        for exercise in _exercises(chapter, entry["exercise"]):
            sample = f"{folder.relative_to(SAMPLES).as_posix()}/{entry['sample']}"
            rows.append(Verdict(sample, exercise, expected, marks, entry.get("static_only", False)))
    return rows


def _exercises(chapter: str, exercise: str) -> list[str]:
    """``[exercise]``, or the chapter's exercises that match a pattern (``"ch6.*"``: every one,
    in the catalogue's order)."""
    if "*" not in exercise:
        return [exercise]
    found = [e.id for e in CHAPTERS[chapter].exercises if fnmatch.fnmatchcase(e.id, exercise)]
    assert found, f"{chapter}: no exercise matches {exercise!r}"
    return found


ROWS_OF = {chapter: verdicts(chapter) for chapter in CHAPTERS}
ROWS = [row for rows in ROWS_OF.values() for row in rows]

_TESTS: dict[tuple[str, str | None], dict] = {}


def _tests(chapter: str, profile: str | None = None) -> dict:
    """The graders of ``chapter`` with the active profile, or with ``profile``."""
    if (chapter, profile) not in _TESTS:
        _TESTS[(chapter, profile)] = mutants.exercise_tests(chapter, profile=profile)
    return _TESTS[(chapter, profile)]


def _param(row: Verdict):
    return pytest.param(row, id=f"{row.sample}-{row.exercise.rpartition('.')[2]}", marks=row.marks)


def _impl(row: Verdict, chapter: str, tmp_path) -> Impl:
    """The sample; for a chapter that builds on earlier ones (the capstone), the sample's files over
    the reference chapter, next to the reference solutions of the chapters it imports."""
    sample = SAMPLES / row.sample
    if not CHAPTERS[chapter].builds_on:
        return Impl.resolve(sample)
    folder = tmp_path / chapter
    shutil.copytree(KIT_ROOT / "solutions" / chapter, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in sample.glob("*.py"):
        shutil.copy(path, folder / path.name)
    mutants.add_earlier_chapters(chapter, tmp_path)
    return Impl.resolve(tmp_path)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_verdict(row: Verdict, harness, tmp_path):
    chapter = row.exercise.split(".")[0]
    impl = _impl(row, chapter, tmp_path)
    if row.expected == FULL:  # every part must pass: the lighter profile's examples
        _assert_full_marks(row, impl, harness)
        return
    expected = row.expected
    # a cheat is graded on the parts it must lose only (the others do not change its verdict),
    # with the active profile
    tests = _tests(chapter)
    only = [
        (part, fns)
        for (exercise, part), fns in tests.items()
        if exercise == row.exercise and part in expected
    ]
    failed, _ = mutants.grade_parts(impl, harness, only)
    kept = sorted(set(expected) - set(failed))
    assert not kept, f"{row.sample} kept credit for {kept}"
    scanned = any(SCANNED in message for message in failed.values())
    if scanned and not row.static_only:  # the scan stopped it first: the runtime guard must too
        failed, _ = mutants.grade_parts(impl, harness, only, static_scan=False)
        kept = sorted(set(expected) - set(failed))
        assert not kept, f"{row.sample} kept credit for {kept} with the runtime guard alone"
    for part, fragment in expected.items():
        fragments = (fragment,) if isinstance(fragment, str) else fragment  # any of them
        assert any(f in failed[part] for f in fragments), (
            f"{row.sample}, part {part}: none of {fragments!r} in:\n{failed[part]}"
        )
        assert "Traceback" not in failed[part]


def _assert_full_marks(row: Verdict, impl: Impl, harness) -> None:
    tests = _tests(row.exercise.split(".")[0], MUTANTS_PROFILE)
    every = [(part, fns) for (exercise, part), fns in tests.items() if exercise == row.exercise]
    failed, _ = mutants.grade_parts(impl, harness, every)
    assert failed == {}, f"{row.sample} lost points: " + "\n".join(f"{p}: {m}" for p, m in failed.items())


def test_a_group_made_with_local_synchronization_after_the_kits_own_subgroups(harness, tmp_path):
    """torch names a group made with ``use_local_synchronization`` from its ranks and the number of
    groups the rank holds. The kit's subgroups of earlier tasks are held by their members only, so
    graded code must not see them (before, the honest local-synchronization sample hung whenever
    ch10's samples had run before it in the same world)."""
    for row in (
        Verdict("ch10/honest_alternative", "ch10.all_reduce_moe_gradients", FULL),
        Verdict("ch11/honest_groups_local_sync", "ch11.build_groups", FULL),
    ):
        _assert_full_marks(row, _impl(row, row.exercise.split(".")[0], tmp_path / row.exercise), harness)


@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_every_sample_has_a_row_and_says_what_it_is(chapter):
    folders = {path.parent.relative_to(SAMPLES).as_posix() for path in red_team(chapter).glob("*/*.py")}
    assert folders == {row.sample for row in ROWS_OF[chapter]}
    for folder in folders:
        for path in (SAMPLES / folder).glob("*.py"):
            first = path.read_text().lstrip().split("\n", 1)[0]
            assert first.startswith('"""'), f"{path} starts without a docstring"
