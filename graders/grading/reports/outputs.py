"""What a batch writes for the teacher, all from the per-student results:

* ``grades.csv``: nbgrader's export columns, one row per student (roster students without a
  submission included, with 0);
* ``grades_wide.csv``: points per exercise, the failure kinds, the integrity flags, the
  submission notes and, for a git repository, the graded commit and its time, for review in a
  spreadsheet;
* ``feedback/<student>.md`` and ``.html``;
* ``gradescope/<student>/results.json`` in Gradescope's autograder format.

Every file is written atomically and readable by the teacher's group
(:mod:`graders.infra.files`); every cell and message is stripped of control characters
(:mod:`graders.infra.safe_text`). ``late`` compares aware datetimes (:mod:`graders.grading.timestamps`)
and is empty where the submission time is unknown.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from graders import catalog
from graders.gradebook import PASSED
from graders.grading import timestamps
from graders.grading.reports import feedback
from graders.infra.files import write_atomic
from graders.infra.safe_text import clean, one_line
from graders.words.vocabulary import exercise_title, part_name, t

NBGRADER_COLUMNS = [
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
]


@dataclass(frozen=True)
class Student:
    student_id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    # what a learning management system knows the student by (graders.grading.lms.gradebooks)
    username: str = ""  # Moodle's username
    idnumber: str = ""  # Moodle's ID number
    display_name: str = ""  # Canvas's Student column (default: "last_name, first_name")
    canvas_id: str = ""  # Canvas's user ID (the ID column of its gradebook export), digits
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""


#: The roster's optional columns, each a field of :class:`Student` of the same name.
ROSTER_COLUMNS = (
    "first_name",
    "last_name",
    "email",
    "username",
    "idnumber",
    "display_name",
    "canvas_id",
    "sis_user_id",
    "sis_login_id",
    "section",
)


def read_roster(path: Path) -> dict[str, Student]:
    """A roster CSV with ``id`` (or ``student_id``) and any of :data:`ROSTER_COLUMNS`.

    Missing columns and cells are empty. nbgrader's ``nbgrader db student import`` takes the
    same file (it reads ``id``, ``first_name``, ``last_name`` and ``email`` and skips the other
    columns). A ``canvas_id`` that is not a number is refused (ValueError): Canvas would match
    nobody with it.
    """
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        roster = {}
        for row in reader:
            sid = (row.get("id") or row.get("student_id") or "").strip()
            if not sid:
                continue
            fields = {column: (row.get(column) or "").strip() for column in ROSTER_COLUMNS}
            canvas_id = fields["canvas_id"]
            if canvas_id and not (canvas_id.isascii() and canvas_id.isdigit()):
                raise ValueError(
                    f"{path}, line {reader.line_num}: canvas_id {one_line(canvas_id)!r} is not a number "
                    "(Canvas's user ID, the ID column of its gradebook export)"
                )
            roster[sid] = Student(sid, **fields)
    return roster


def _csv_text(columns: list[str], rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: one_line(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows)
    return buffer.getvalue()


def _score(value: float) -> str:
    return f"{float(value):.1f}"


def failure_kinds(result) -> list[str]:
    """Why points were lost: part failure kinds (wrong, hang, crash, ...) and grading errors."""
    kinds = [p.kind or p.status for p in result.book.parts.values() if p.status != PASSED]
    if result.error_kind:
        kinds.append(result.error_kind)
    return kinds


def write_all(
    results: list,
    chapter: str,
    out_dir: Path,
    *,
    assignment: str | None = None,
    duedate: str = "",
    roster: dict[str, Student] | None = None,
    lang: str = "en",
) -> None:
    out_dir = Path(out_dir)
    roster = roster or {}
    assignment = assignment or chapter
    exercises = catalog.CHAPTERS[chapter].exercises
    possible = catalog.CHAPTERS[chapter].points
    by_id = {r.student_id: r for r in results}
    students = sorted(set(by_id) | set(roster))

    grades, wide = [], []
    for sid in students:
        person = roster.get(sid, Student(sid))
        result = by_id.get(sid)
        earned = result.book.total[0] if result else 0
        grades.append(
            {
                "assignment": assignment,
                "duedate": duedate,
                "timestamp": result.timestamp if result else "",
                "student_id": sid,
                "last_name": person.last_name,
                "first_name": person.first_name,
                "email": person.email,
                "raw_score": _score(earned),
                "late_submission_penalty": _score(0),
                "score": _score(earned),
                "max_score": _score(possible),
            }
        )
        row = {"student_id": sid, "last_name": person.last_name, "first_name": person.first_name}
        points = {r.exercise: r.points for r in result.book.rows()} if result else {}
        row.update({e.id: points.get(e.id, 0) for e in exercises})
        kinds = failure_kinds(result) if result else []
        row.update(
            score=earned,
            max_score=possible,
            status=("error: " + result.error_kind if result and result.error else "graded")
            if result
            else "no submission",
            failures="; ".join(f"{k} x{kinds.count(k)}" for k in sorted(set(kinds))),
            integrity=" | ".join(feedback.integrity_flags(result, lang)) if result else "",
            notes=" | ".join(result.notes) if result else "",
            timestamp=result.timestamp if result else "",
            late=timestamps.late(result.timestamp, duedate) if result else "",
            commit=result.commit if result else "",
            commit_time=result.commit_time if result else "",
        )
        wide.append(row)
    wide_columns = ["student_id", "last_name", "first_name", *[e.id for e in exercises]]
    wide_columns += ["score", "max_score", "status", "failures", "integrity", "notes", "timestamp", "late"]
    wide_columns += ["commit", "commit_time"]

    for result in results:
        sid = result.student_id
        feedback.write_figures(result, out_dir / "feedback")
        write_atomic(out_dir / "feedback" / f"{sid}.md", feedback.markdown(result, chapter, lang))
        write_atomic(out_dir / "feedback" / f"{sid}.html", feedback.html_page(result, chapter, lang))
        write_atomic(
            out_dir / "gradescope" / sid / "results.json",
            json.dumps(gradescope_results(result, chapter, lang), indent=2, ensure_ascii=False),
        )
    write_atomic(out_dir / "grades_wide.csv", _csv_text(wide_columns, wide))
    write_atomic(out_dir / "grades.csv", _csv_text(NBGRADER_COLUMNS, grades))


def gradescope_results(result, chapter: str, lang: str = "en") -> dict:
    """Gradescope's autograder ``results.json``: one test per exercise part."""
    tests = []
    for number, exercise in enumerate(catalog.CHAPTERS[chapter].exercises, start=1):
        for sub, (part, max_points) in enumerate(exercise.parts.items(), start=1):
            entry = result.book.parts.get(f"{exercise.id}::{part}")
            passed = entry is not None and entry.status == PASSED
            output = "" if passed or entry is None else clean(feedback.part_message(entry, lang))
            tests.append(
                {
                    "name": f"{exercise.id} [{part_name(part, lang)}] · {exercise_title(exercise, lang)}",
                    "number": f"{number}.{sub}",
                    "score": max_points if passed else 0,
                    "max_score": max_points,
                    "status": "passed" if passed else "failed",
                    "output": output,
                    "visibility": "visible",
                }
            )
    earned, _ = result.book.total
    total = f"{earned}/{catalog.CHAPTERS[chapter].points} {t('points', lang)}"
    summary = [total, *feedback.summary_lines(result, lang)]
    return {
        "score": float(earned),
        "execution_time": round(result.seconds, 1),
        "output": "\n".join(summary),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
