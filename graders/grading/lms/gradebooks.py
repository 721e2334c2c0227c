"""Gradebook files that Moodle and Canvas import: ``dtlab grade … --export moodle,canvas``.

Both files hold one row per student of the class, in the order of ``grades.csv`` (the roster's
students without a submission get 0, as there), and the assignment's total points as one grade
(with Moodle, its feedback too):

* ``grades_moodle.csv``, for Moodle's *Grades ▸ Import ▸ CSV file*, in the layout of Moodle's own
  *Export ▸ Plain text file* with feedback: ``First name, Last name, ID number, Institution,
  Department, Email address`` (the user fields that export writes by default; ``Username`` after
  them with ``--moodle-id username``), then the grade, headed ``NAME (Real)``, and its feedback,
  headed ``NAME (Feedback)``, as Moodle's export heads an item's columns. On the import's mapping
  page the teacher maps the identifier chosen with ``--moodle-id`` ("Map from" ``Email address``,
  ``Username`` or ``ID number``, "Map to" the same user field; the page may pre-select another),
  the grade column to the grade item and the feedback column to "Feedback for" it (Moodle names an
  activity's item ``Assignment: NAME``: the name to give ``--assignment``). Moodle warns that
  importing feedback overwrites the item's grades, so the two always travel together; the
  feedback is the student's points per exercise, on one line (:func:`feedback_line`), with
  ``<``, ``>`` and ``&`` escaped (Moodle shows imported feedback as HTML). Names come
  from the roster (empty where it has none); Institution and Department stay empty. Moodle stops
  the whole import at the first row whose identifier matches nobody, so a student without the
  identifier in the roster is left out and named (:attr:`Export.skipped`), never written with an
  empty cell; and as it compares e-mail addresses capitals and all, the addresses with capitals
  are named too (:func:`email_case_warning`).
* ``grades_canvas.csv``, for Canvas's *Grades ▸ Import*, in the layout of Canvas's own gradebook
  export: ``Student, ID, SIS User ID, SIS Login ID, Section``, one assignment column headed
  ``NAME (ASSIGNMENT_ID)`` as Canvas heads it (Canvas finds the assignment by that id; with no id
  the header is the bare name, and Canvas takes the course's assignment of that name or creates
  one), and the ``Points Possible`` row under the header, with the kit's points (an assignment
  the import creates takes them). Canvas matches a row to a student by ``ID`` (the Canvas user
  id), then ``SIS User ID``, then ``SIS Login ID``; a student with none of the three is left out
  and named (matching by name alone is too weak for a class with two students of one name).

Both files are UTF-8 with a byte-order mark (both importers drop it; Excel needs it to show
Vietnamese names) and written atomically. Every text cell is one line without control characters
(:func:`graders.infra.safe_text.one_line`), and a cell a spreadsheet would take for a formula (it
starts with ``=``, ``+``, ``-`` or ``@``) gets a leading apostrophe; an identifier that would need
one is not written, since the LMS would match nobody with it, and its student is named instead.
"""

from __future__ import annotations

import csv
import html
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from graders import catalog
from graders.gradebook import PASSED
from graders.grading.reports import feedback
from graders.grading.reports.outputs import Student
from graders.infra.files import write_atomic
from graders.infra.safe_text import one_line
from graders.words.messages import say
from graders.words.text import join
from graders.words.vocabulary import part_name, t

KINDS = ("moodle", "canvas")
FILES = {"moodle": "grades_moodle.csv", "canvas": "grades_canvas.csv"}
#: ``--moodle-id``: the roster's column (a field of Student) -> the header of Moodle's grade export
MOODLE_IDENTIFIERS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}
#: The user columns of Moodle's grade export, in its order, and the roster's fields for them (None:
#: the roster has no such field and the column stays empty)
MOODLE_USER_COLUMNS = {
    "First name": "first_name",
    "Last name": "last_name",
    "ID number": "idnumber",
    "Institution": None,
    "Department": None,
    "Email address": "email",
}
#: The student columns of Canvas's gradebook export, in its order, and the roster's fields for them
CANVAS_COLUMNS = {
    "Student": "display_name",
    "ID": "canvas_id",
    "SIS User ID": "sis_user_id",
    "SIS Login ID": "sis_login_id",
    "Section": "section",
}
CANVAS_IDENTIFIERS = ("ID", "SIS User ID", "SIS Login ID")
POINTS_POSSIBLE = "Points Possible"
BOM = "\ufeff"
#: What makes a spreadsheet read a cell as a formula (tabs and carriage returns never reach a cell)
_FORMULA = ("=", "+", "-", "@")
#: How Canvas reads an id out of an assignment's header: "Lab 2 (1234)"
_CANVAS_TITLE_AND_ID = re.compile(r"^(.*)\s\((\d+)\)$")


@dataclass
class Export:
    kind: str
    path: Path
    written: list[str] = field(default_factory=list)  # the kit's student ids, in the file's order
    skipped: list[str] = field(default_factory=list)  # "student: why it is not in the file"
    capitalised: list[str] = field(default_factory=list)  # e-mail identifiers with capital letters


def cell(text: object) -> str:
    """``text`` on one line, inert in a spreadsheet: a leading apostrophe where it would be a formula."""
    line = one_line(text)
    return "'" + line if line.startswith(_FORMULA) else line


def points(value: float) -> str:
    """A score as Moodle and Canvas read it: ``12``, ``12.5``."""
    return f"{round(float(value), 2):g}"


def canvas_header(assignment: str, assignment_id: int | None) -> str:
    """The assignment column's header; a bare name that Canvas would read as holding an id is refused."""
    name = one_line(assignment)
    if assignment_id is not None:
        return f"{name} ({assignment_id})"
    if _CANVAS_TITLE_AND_ID.match(name):
        raise ValueError(say("export:canvas name", name=name))
    return name


def roster_problem(kinds: list[str], roster: dict[str, Student], moodle_id: str = "email") -> str:
    """Why ``roster`` cannot give the identifiers ``kinds`` need ("" when it can)."""
    if not kinds:
        return ""
    if not roster:
        return say("export:no roster")
    if "moodle" in kinds and not any(getattr(s, moodle_id) for s in roster.values()):
        return say("export:no moodle id", column=moodle_id, identifier=MOODLE_IDENTIFIERS[moodle_id])
    fields = [CANVAS_COLUMNS[c] for c in CANVAS_IDENTIFIERS]
    if "canvas" in kinds and not any(getattr(s, f) for s in roster.values() for f in fields):
        return say("export:no canvas id", columns=", ".join(fields))
    return ""


def _class(results: list, roster: dict[str, Student]) -> list[tuple[Student, float]]:
    """Every student of the class with their points, in ``grades.csv``'s order."""
    by_id = {r.student_id: r for r in results}
    return [
        (roster.get(sid, Student(sid)), by_id[sid].book.total[0] if sid in by_id else 0)
        for sid in sorted(set(by_id) | set(roster))
    ]


def _csv(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return BOM + buffer.getvalue()


def _formula(value: str) -> str:
    """Why an identifier (on one line) cannot be written as it is ("" when it can)."""
    return say("export:formula", value=value) if value.startswith(_FORMULA) else ""


def moodle_header(assignment: str, identifier: str = "email") -> list[str]:
    """The header row of ``grades_moodle.csv``: Moodle's user columns, the grade, its feedback."""
    users = [*MOODLE_USER_COLUMNS, *(["Username"] if identifier == "username" else [])]
    name = one_line(assignment)
    return [*users, cell(f"{name} (Real)"), cell(f"{name} (Feedback)")]


def feedback_line(result, chapter: str, lang: str = "en") -> str:
    """A student's feedback for Moodle's feedback column, on one line: the total, each exercise's
    points and status (with why each part failed), then what concerns the whole submission."""
    possible = catalog.CHAPTERS[chapter].points
    if result is None:
        return f"{t('total', lang)}: 0/{possible} · {t('no submission', lang)}"
    pieces = [f"{t('total', lang)}: {result.book.total[0]}/{possible}"]
    for row in result.book.rows():
        failed = [] if row.status == "not started" else [p for p in row.parts if p.status != PASSED]
        why = ", ".join(f"{part_name(p.part, lang)}: {t(_kind(p), lang)}" for p in failed)
        pieces.append(f"{row.exercise} {row.points}/{row.max_points} {t(row.status, lang)}")
        pieces[-1] += f" ({why})" if why else ""
    return " · ".join(pieces + feedback.summary_lines(result, lang))


def _kind(part) -> str:
    """The word for why a part failed: its failure kind, or its status where it has none."""
    return "kind:" + part.kind if part.kind else part.status


def email_case_warning(export: Export, lang: str = "en") -> str:
    """What to say about the e-mail identifiers with capitals ("" when there are none): Moodle's
    import matches an address only as Moodle holds it, capitals included."""
    if not export.capitalised:
        return ""
    emails = ", ".join(export.capitalised)
    return t("moodle:email case", lang, file=export.path.name, count=len(export.capitalised), emails=emails)


def moodle(
    results: list,
    chapter: str,
    out_dir: Path,
    roster: dict[str, Student],
    *,
    assignment: str,
    identifier: str = "email",
    lang: str = "en",
) -> Export:
    """``grades_moodle.csv``: Moodle's user columns, with ``identifier`` (a key of
    MOODLE_IDENTIFIERS) to match the students by, the grade and its feedback in ``lang``."""
    export = Export("moodle", Path(out_dir) / FILES["moodle"])
    by_id = {r.student_id: r for r in results}
    rows, seen = [moodle_header(assignment, identifier)], {}
    for person, earned in _class(results, roster):
        sid, value = person.student_id, one_line(getattr(person, identifier))
        student = one_line(sid)
        if sid not in roster:
            export.skipped.append(say("export:not on roster", student=student))
        elif not value:
            export.skipped.append(say("export:no identifier", student=student, identifier=identifier))
        elif _formula(value):
            export.skipped.append(
                f"{student}: " + say("export:its", identifier=identifier, why=_formula(value))
            )
        elif value in seen:
            twin = one_line(seen[value])
            export.skipped.append(
                say("export:same identifier", student=student, identifier=identifier, twin=twin)
            )
        else:
            seen[value] = sid
            users = [cell(getattr(person, f)) if f else "" for f in MOODLE_USER_COLUMNS.values()]
            users += [cell(person.username)] if identifier == "username" else []
            said = feedback_line(by_id.get(sid), chapter, lang)
            grade = [points(earned), cell(html.escape(said, quote=False))]  # Moodle shows it as HTML
            rows.append(users + grade)
            export.written.append(sid)
            if identifier == "email" and value != value.lower():
                export.capitalised.append(value)
    write_atomic(export.path, _csv(rows))
    return export


def canvas(
    results: list,
    chapter: str,
    out_dir: Path,
    roster: dict[str, Student],
    *,
    assignment: str,
    assignment_id: int | None = None,
) -> Export:
    """``grades_canvas.csv``: Canvas's student columns, one assignment, the Points Possible row."""
    export = Export("canvas", Path(out_dir) / FILES["canvas"])
    possible = points(catalog.CHAPTERS[chapter].points)
    header = [*CANVAS_COLUMNS, cell(canvas_header(assignment, assignment_id))]
    rows = [header, [POINTS_POSSIBLE, "", "", "", "", possible]]
    seen: dict[tuple[str, str], str] = {}
    for person, earned in _class(results, roster):
        sid = person.student_id
        ids = {c: one_line(getattr(person, CANVAS_COLUMNS[c])) for c in CANVAS_IDENTIFIERS}
        usable = {c: v for c, v in ids.items() if v and not _formula(v)}
        twin = next((seen[(c, v)] for c, v in usable.items() if (c, v) in seen), None)
        if sid not in roster:
            export.skipped.append(say("export:not on roster", student=one_line(sid)))
            continue
        if not usable:
            whys = [
                say("export:its", identifier=CANVAS_COLUMNS[c], why=_formula(v)) for c, v in ids.items() if v
            ]
            export.skipped.append(
                f"{one_line(sid)}: " + (join("; ", whys) if whys else say("export:no canvas ids"))
            )
            continue
        if twin is not None:
            export.skipped.append(say("export:same canvas id", student=one_line(sid), twin=one_line(twin)))
            continue
        seen.update({(c, v): sid for c, v in usable.items()})
        name = person.display_name or ", ".join(n for n in (person.last_name, person.first_name) if n)
        if POINTS_POSSIBLE in name:  # Canvas would read the row as the assignment's points
            name = sid
        rows.append(
            [
                cell(name or sid),
                usable.get("ID", ""),
                usable.get("SIS User ID", ""),
                usable.get("SIS Login ID", ""),
                cell(person.section),
                points(earned),
            ]
        )
        export.written.append(sid)
    write_atomic(export.path, _csv(rows))
    return export


def write(
    kinds: list[str],
    results: list,
    chapter: str,
    out_dir: Path,
    roster: dict[str, Student],
    *,
    assignment: str,
    moodle_id: str = "email",
    canvas_assignment_id: int | None = None,
    lang: str = "en",
) -> list[Export]:
    """The files of ``kinds`` (each of KINDS), in that order; Moodle's feedback in ``lang``."""
    exports = []
    for kind in kinds:
        if kind == "moodle":
            exports.append(
                moodle(
                    results, chapter, out_dir, roster, assignment=assignment, identifier=moodle_id, lang=lang
                )
            )
        else:
            exports.append(
                canvas(
                    results,
                    chapter,
                    out_dir,
                    roster,
                    assignment=assignment,
                    assignment_id=canvas_assignment_id,
                )
            )
    return exports
