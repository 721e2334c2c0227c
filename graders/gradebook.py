"""Results of one grading run: per exercise part a status, points and feedback.

The pytest plugin fills a :class:`Gradebook` as tests finish, prints it as the end-of-run
summary, and writes it as JSON (``--dtlab-report``); batch grading reads those JSON files back.
A failed part keeps why as a :class:`graders.errors.Failure` record, beside it in the lowest
layer: the gradebook imports neither torch nor pytest.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graders import catalog
from graders.errors import Failure, FailureKind, render
from graders.words.text import in_every_lang
from graders.words.vocabulary import part_name, t

PASSED, FAILED, NOT_STARTED, NOT_RUN = "passed", "failed", "not started", "not run"
#: the failures that cost the whole exercise: a banned call, a way around the guard
CONDEMNING = frozenset({FailureKind.BANNED, FailureKind.INTEGRITY})
#: what a part graded by several tests shows: the worst of its tests' statuses. A test that did not
#: run (skipped, deselected by ``-k``, after ``-x`` stopped the run) is not a failure, but the part
#: did not pass either.
_RANK = {PASSED: 0, NOT_RUN: 1, NOT_STARTED: 2, FAILED: 3}


def _note_in(note: dict[str, str] | str, lang: str) -> str:
    """An integrity note in ``lang``: ``{lang: text}``, or a plain ``str`` (the same in every language)."""
    return (note.get(lang) or note["en"]) if isinstance(note, dict) else note


def _mark(status: str, lang: str) -> str:
    """A part's mark in the points table: ✓ passed, ✗ failed, else its status in words."""
    return {PASSED: "✓", FAILED: "✗"}.get(status) or t(status, lang)


@dataclass
class PartResult:
    exercise: str
    part: str
    status: str
    points: int
    max_points: int
    kind: str = ""  # why it failed: a graders.errors.FailureKind
    failure: dict | None = None  # why, as data in every language: a graders.errors.Failure
    figures: list[str] = field(default_factory=list)  # PNG files, relative to the report's folder

    def why(self) -> Failure | None:
        return Failure.from_dict(self.failure)

    def text(self, lang: str = "en", *, subject: bool = True) -> str:
        """Why it failed, as text in ``lang`` ("" when it did not fail or nothing was said)."""
        why = self.why()
        return render(why, lang, subject=subject) if why is not None else ""


@dataclass
class ExerciseRow:
    exercise: str
    title: str
    status: str
    points: int
    max_points: int
    parts: list[PartResult]


def example_size(example: str) -> tuple[int, int, int]:
    """How big a case is, from its one-line description: its world size, its tensor's elements
    (the first ``shape=(…)``), its length."""
    world = re.search(r"\bworld_size=(\d+)", example)
    shape = re.search(r"\bshape=\(([\d, ]*)\)", example)
    numel = math.prod(int(d) for d in shape[1].replace(" ", "").split(",") if d) if shape else 0
    return (int(world[1]) if world else 0, numel, len(example))


def _smaller(failure: Failure, previous: PartResult) -> bool:
    """Whether ``failure`` shows a smaller example than the part's failure so far (of the same kind)."""
    before = previous.why()
    if before is None or before.kind != failure.kind or not failure.example or not before.example:
        return False
    return example_size(failure.example) < example_size(before.example)


@dataclass
class Gradebook:
    impl: str = ""
    profile: str = ""
    parts: dict[str, PartResult] = field(default_factory=dict)  # "exercise::part"
    #: exercise -> its integrity notes (static-scan findings, banned calls, run-time tampering),
    #: each ``{lang: text}`` as a failure's texts are (:meth:`keep_integrity`, :meth:`integrity_in`)
    integrity: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    hidden_run: set[str] = field(default_factory=set)  # "exercise::part" a hidden grader graded
    #: what the code did on the diagnostic battery of each failing exercise (``--dtlab-diagnose``)
    diagnostics: dict[str, dict] = field(default_factory=dict)
    #: exercise -> the banned call or the way around the guard found in it (a Failure as data):
    #: it costs every part of the exercise, whichever test found it
    condemned: dict[str, dict] = field(default_factory=dict)
    #: exercise -> the known misconception its failing code behaves like, said in every language
    #: (``{"name": mutant, "said": {lang: text}}``; :mod:`graders.misconceptions.student_view`)
    named: dict[str, dict] = field(default_factory=dict)

    def record(
        self,
        exercise_id: str,
        part: str,
        status: str,
        failure: Failure | None = None,
        figures: list[str] | None = None,
    ) -> None:
        if failure is not None and failure.kind in CONDEMNING and exercise_id not in self.condemned:
            self._condemn(exercise_id, failure)
        verdict = self.condemned.get(exercise_id)
        if verdict is not None and (failure is None or failure.kind not in CONDEMNING):
            status, failure = FAILED, Failure.from_dict(verdict)
        entry = catalog.exercise(exercise_id)
        max_points = entry.parts[part]
        key = f"{exercise_id}::{part}"
        previous = self.parts.get(key)
        if previous is not None and previous.status == status == FAILED and failure is not None:
            if not _smaller(failure, previous):
                return  # of a part's failing tests, the one with the smallest example is shown
        elif previous is not None and _RANK[previous.status] >= _RANK[status]:
            return  # a part graded by several tests passes only if all of them pass (and ran)
        points = max_points if status == PASSED else 0
        kind = failure.kind if failure is not None else ""
        record = failure.to_dict() if failure is not None else None
        self.parts[key] = PartResult(
            exercise_id, part, status, points, max_points, kind, record, list(figures or [])
        )

    def _condemn(self, exercise_id: str, failure: Failure) -> None:
        """A banned call or a way around the guard: every part of the exercise fails with it,
        those graded already included (a part no test ran fails too, in :meth:`rows`)."""
        self.condemned[exercise_id] = failure.to_dict()
        for part in [p for p in self.parts.values() if p.exercise == exercise_id]:
            if part.kind not in CONDEMNING:
                part.status, part.points, part.kind, part.failure = FAILED, 0, failure.kind, failure.to_dict()

    def rows(self) -> list[ExerciseRow]:
        """One row per exercise that had at least one part graded, in catalog order."""
        touched = {p.exercise for p in self.parts.values()}
        rows = []
        for entry in catalog.EXERCISES.values():
            if entry.id not in touched:
                continue
            parts = [
                self.parts.get(f"{entry.id}::{name}") or self._unrecorded(entry.id, name, pts)
                for name, pts in entry.parts.items()
            ]
            statuses = {p.status for p in parts}
            if statuses == {PASSED}:
                status = PASSED
            elif statuses <= {NOT_STARTED, NOT_RUN} and NOT_STARTED in statuses:
                status = NOT_STARTED
            elif FAILED in statuses or {PASSED, NOT_STARTED} <= statuses:
                status = FAILED
            else:  # what ran passed, the rest did not run
                status = NOT_RUN
            rows.append(
                ExerciseRow(
                    entry.id,
                    entry.title,
                    status,
                    sum(p.points for p in parts),
                    sum(p.max_points for p in parts),
                    parts,
                )
            )
        return rows

    def _unrecorded(self, exercise_id: str, part: str, points: int) -> PartResult:
        """A part no test graded: not run, or failed with its exercise's banned call."""
        verdict = self.condemned.get(exercise_id)
        if verdict is None:
            return PartResult(exercise_id, part, NOT_RUN, 0, points)
        return PartResult(exercise_id, part, FAILED, 0, points, verdict["kind"], verdict)

    def keep_integrity(self, notes: Mapping[str, Iterable[object]]) -> None:
        """Keep ``notes`` (exercise -> Texts or strs) as the integrity notes, in every language."""
        self.integrity = {k: [in_every_lang(n) for n in sorted(v)] for k, v in notes.items() if v}

    def integrity_in(self, lang: str) -> dict[str, list[str]]:
        """exercise -> its integrity notes in ``lang``, those with none left out."""
        return {k: [_note_in(n, lang) for n in v] for k, v in self.integrity.items() if v}

    def hidden_not_run(self) -> dict[str, list[str]]:
        """Per graded exercise, the parts that have hidden graders this run did not include."""
        missing = {}
        for row in self.rows():
            parts = [
                p
                for p in catalog.HIDDEN_PARTS.get(row.exercise, ())
                if f"{row.exercise}::{p}" not in self.hidden_run
            ]
            if parts:
                missing[row.exercise] = parts
        return missing

    @property
    def total(self) -> tuple[int, int]:
        rows = self.rows()
        return sum(r.points for r in rows), sum(r.max_points for r in rows)

    # -- rendering ---------------------------------------------------------------------------
    def render(self, lang: str = "en") -> str:
        rows = self.rows()
        if not rows:
            return ""
        width = max(len(r.exercise) for r in rows) + 2
        header = f"{t('exercise', lang):<{width}}{t('points', lang):>8}   {t('status', lang)}"
        lines = [header, "-" * (len(header) + 12)]
        for row in rows:
            detail = ""
            mixed = len({p.status for p in row.parts}) > 1
            if row.status in (FAILED, NOT_RUN) and mixed:
                marks = (f"{part_name(p.part, lang)} {_mark(p.status, lang)}" for p in row.parts)
                detail = "  (" + ", ".join(marks) + ")"
            points = f"{row.points}/{row.max_points}"
            lines.append(f"{row.exercise:<{width}}{points:>8}   {t(row.status, lang)}{detail}")
        earned, possible = self.total
        lines.append("-" * (len(header) + 12))
        lines.append(f"{t('total', lang):<{width}}{f'{earned}/{possible}':>8}")
        unchecked = self.hidden_not_run()
        if unchecked:
            lines.append("")
            lines.append(t("hidden not run", lang) + ":")
            for exercise_id, parts in unchecked.items():
                lines.append(f"  {exercise_id}: {', '.join(parts)}")
        notes = self.integrity_in(lang)
        if notes:
            lines.append("")
            lines.append(t("integrity", lang) + ":")
            for exercise_id, items in sorted(notes.items()):
                for item in items:
                    lines.append(f"  {exercise_id}: {item}")
        return "\n".join(lines)

    # -- persistence -------------------------------------------------------------------------
    def to_dict(self) -> dict:
        earned, possible = self.total
        return {
            "impl": self.impl,
            "profile": self.profile,
            "score": earned,
            "max_score": possible,
            "exercises": [
                {
                    **{k: v for k, v in asdict(row).items() if k != "parts"},
                    "parts": [asdict(p) for p in row.parts],
                }
                for row in self.rows()
            ],
            "integrity": {
                k: sorted(v, key=lambda n: _note_in(n, "en")) for k, v in self.integrity.items() if v
            },
            "hidden_run": sorted(self.hidden_run),
            **({"condemned": self.condemned} if self.condemned else {}),
            **({"diagnostics": self.diagnostics} if self.diagnostics else {}),
            **({"named": self.named} if self.named else {}),
        }

    def said_misconceptions(self, lang: str) -> list[str]:
        """Each failing exercise's named misconception (:attr:`named`), in ``lang``."""
        return [
            f"{e}: {named['said'].get(lang, named['said']['en'])}" for e, named in sorted(self.named.items())
        ]

    def write(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False))
        tmp.replace(path)

    @classmethod
    def from_dict(cls, data: dict) -> Gradebook:
        book = cls(impl=data.get("impl", ""), profile=data.get("profile", ""))
        for row in data.get("exercises", []):
            for part in row["parts"]:
                book.parts[f"{part['exercise']}::{part['part']}"] = PartResult(**part)
        book.integrity = {k: list(v) for k, v in data.get("integrity", {}).items()}
        book.hidden_run = set(data.get("hidden_run", []))
        book.diagnostics = dict(data.get("diagnostics", {}))
        book.condemned = dict(data.get("condemned", {}))
        book.named = dict(data.get("named", {}))
        return book
