"""Mutants: known-wrong variants of the reference solutions, which the graders must catch.

Each chapter's ``fixtures/mutants/chN.toml`` lists edits (``old`` → ``new`` inside one
function of one solution file). A mutant names the ``part`` it must fail; ``alone = true``
says it must pass every other part of its exercise (it proves that part's check can fail by
itself). The ``[not_alone]`` table names, with a reason, the parts no single plausible bug
can fail alone. :func:`materialize` writes the mutated chapter into a folder that can be
graded like any submission (``--impl FOLDER``).
"""

from __future__ import annotations

import ast
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from graders.catalog import CHAPTERS
from graders.errors import GradingFailure, Halt, NotStarted, classify
from graders.gradebook import CONDEMNING
from graders.impl import KIT_ROOT, Impl
from graders.plugin.chapter_tests import exercise_tests  # noqa: F401 - where the mutants' graders come from


@dataclass(frozen=True)
class Edit:
    file: str
    function: str
    old: str
    new: str


@dataclass(frozen=True)
class Mutant:
    name: str
    exercise: str
    part: str | None
    description: str
    edits: tuple[Edit, ...]
    alone: bool = False  # must pass every other part of its exercise
    #: the misconception in teaching terms (a student's code that behaves like the mutant is told
    #: "your <exercise> behaves like one that <description>"), and a hint, both in two languages
    description_vi: str = ""
    hint: str = ""
    hint_vi: str = ""

    @property
    def chapter(self) -> str:
        return self.exercise.split(".")[0]


def path_of(chapter: str, kit_root: Path = KIT_ROOT) -> Path:
    return kit_root / "fixtures" / "mutants" / f"{chapter}.toml"


def not_alone(chapter: str, kit_root: Path = KIT_ROOT) -> dict[str, str]:
    """``"exercise.part"`` -> why no mutant can fail that part alone."""
    return dict(tomllib.loads(path_of(chapter, kit_root).read_text()).get("not_alone", {}))


def load(chapter: str, kit_root: Path = KIT_ROOT) -> list[Mutant]:
    data = tomllib.loads(path_of(chapter, kit_root).read_text())
    merged: dict[str, dict] = {}
    for entry in data["mutant"]:
        edit = Edit(entry["file"], entry["function"], entry["old"], entry["new"])
        if entry["name"] in merged:
            merged[entry["name"]]["edits"].append(edit)
            continue
        merged[entry["name"]] = {
            "name": entry["name"],
            "exercise": entry["exercise"],
            "part": entry.get("part"),
            "description": entry.get("description", ""),
            "edits": [edit],
            "alone": entry.get("alone", False),
            **{key: entry.get(key, "") for key in ("description_vi", "hint", "hint_vi")},
        }
    return [Mutant(**{**m, "edits": tuple(m["edits"])}) for m in merged.values()]


class MutantDoesNotApply(ValueError):
    pass


def _function_span(source: str, qualname: str) -> tuple[int, int]:
    """Character offsets of the function ``qualname`` in ``source``."""
    tree = ast.parse(source)
    parts = qualname.split(".")
    nodes = tree.body
    found = None
    for part in parts:
        found = next(
            (
                n
                for n in nodes
                if isinstance(n, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) and n.name == part
            ),
            None,
        )
        if found is None:
            raise MutantDoesNotApply(f"no function {qualname}")
        nodes = found.body
    lines = source.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: found.lineno - 1])
    end = sum(len(line) for line in lines[: found.end_lineno])
    return start, end


def apply(source: str, edit: Edit) -> str:
    start, end = _function_span(source, edit.function)
    body = source[start:end]
    if body.count(edit.old) != 1:
        raise MutantDoesNotApply(
            f"{edit.file}:{edit.function}: the snippet occurs {body.count(edit.old)} times "
            f"(expected once):\n{edit.old}"
        )
    return source[:start] + body.replace(edit.old, edit.new) + source[end:]


def materialize(mutant: Mutant, dest: Path, kit_root: Path = KIT_ROOT) -> Path:
    """Write the solution chapter with the mutant's edits into ``dest/<chapter>``."""
    chapter_dir = dest / mutant.chapter
    if chapter_dir.exists():
        shutil.rmtree(chapter_dir)
    chapter_dir.mkdir(parents=True)
    for path in (kit_root / "solutions" / mutant.chapter).glob("*.py"):
        shutil.copy(path, chapter_dir / path.name)
    add_earlier_chapters(mutant.chapter, dest, kit_root)
    for edit in mutant.edits:
        target = chapter_dir / edit.file
        target.write_text(apply(target.read_text(), edit))
    return dest


def add_earlier_chapters(chapter: str, dest: Path, kit_root: Path = KIT_ROOT) -> None:
    """Next to ``dest/<chapter>``, the reference solutions of the chapters it builds on (the
    capstone imports chapters 5 to 7), so that only the chapter itself is the variant graded."""
    for earlier in CHAPTERS[chapter].builds_on:
        folder = dest / earlier
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(
            kit_root / "solutions" / earlier, folder, ignore=shutil.ignore_patterns("__pycache__")
        )


# -- running the graders against a mutant --------------------------------------------------------


@dataclass
class MutantOutcome:
    mutant: Mutant
    failed_parts: dict[str, str]  # part -> the feedback that caught it
    passed_parts: tuple[str, ...] = ()

    @property
    def caught(self) -> bool:
        if self.mutant.part is not None:
            return self.mutant.part in self.failed_parts
        return bool(self.failed_parts)


def grade_parts(
    impl, harness, parts, *, stop=lambda failed: False, static_scan: bool = True
) -> tuple[dict[str, str], list[str]]:
    """Run the tests of ``parts`` (``[(part, functions)]``) against ``impl`` in order:
    ``(failed part -> feedback, passed parts)``, stopping early once ``stop(failed)``.
    The worlds are ``harness``'s, its integrity notes are not; ``static_scan=False`` lets
    only the runtime guard judge the code."""
    from graders.plugin.harness import Harness  # torch: only when mutants are graded

    harness = Harness(harness.pool, static_scan=static_scan)

    failed: dict[str, str] = {}
    passed: list[str] = []
    condemned = ""  # a banned call or a way around the guard costs every part, as in the gradebook
    for part, functions in parts:
        if stop(failed):
            break
        for fn in functions:
            try:
                fn(harness=harness, impl=impl)
            except NotStarted as exc:
                raise AssertionError(f"{impl.label} is reported as not started: {exc}") from exc
            except (GradingFailure, Halt) as exc:
                failed[part] = str(exc)
                condemned = condemned or (str(exc) if classify(exc) in CONDEMNING else "")
                break
        else:
            passed.append(part)
    if condemned:
        failed.update({part: condemned for part, _ in parts if part not in failed})
        passed = []
    return failed, passed


def run_mutant(
    mutant: Mutant,
    harness,
    workdir: Path,
    tests: dict[tuple[str, str], list] | None = None,
    others: dict[tuple[str, str], list] | None = None,
) -> MutantOutcome:
    """Grade the mutant's exercise and say which parts failed (and how).

    The mutant's own part (if it names one) is graded first, with ``tests``, and grading stops
    once the mutant is caught, unless the mutant is ``alone``: then every other part is graded
    too, with ``others`` (``tests`` unless given: a lighter profile's copies, since those parts
    only have to pass; see ``graders.plugin.profiles.MUTANTS_PROFILE``).
    """
    tests = tests if tests is not None else exercise_tests(mutant.chapter)
    others = others if others is not None else tests
    impl = Impl.resolve(materialize(mutant, workdir))
    mine = [key for key in tests if key[0] == mutant.exercise]
    parts = [
        (part, (tests if part == mutant.part or mutant.part is None else others)[(e, part)])
        for e, part in mine
    ]
    parts.sort(key=lambda item: item[0] != mutant.part)

    def caught(failed):
        return not mutant.alone and bool(failed) and (mutant.part is None or mutant.part in failed)

    failed, passed = grade_parts(impl, harness, parts, stop=caught)
    return MutantOutcome(mutant, failed, tuple(passed))
