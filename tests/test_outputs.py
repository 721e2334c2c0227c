"""The teacher's files, from results alone: nbgrader's columns, the roster, the wide CSV with its
integrity column, HTML feedback that escapes what students wrote, Gradescope's format."""

import csv
import json

from graders.grading import outputs
from graders.grading.runner import StudentResult
from graders.plugin.results import FAILED, PASSED, Gradebook


def result(student, passed=(), failed=(), integrity=None, error="", notes=()):
    book = Gradebook(impl=student, profile="grading")
    for exercise_id, part in passed:
        book.record(exercise_id, part, PASSED)
    for exercise_id, part, kind, message in failed:
        book.record(exercise_id, part, FAILED, kind, message)
    book.integrity = integrity or {}
    return StudentResult(
        student, book, seconds=3.0, error=error, error_kind="timeout" if error else "", notes=list(notes),
        timestamp="2026-03-01T10:00:00+00:00",
    )  # fmt: skip


def test_files_for_a_class_with_a_roster(tmp_path):
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(
        "id,first_name,last_name,email\nan,An,Nguyen,an@uni.edu\nbinh,Binh,Tran,binh@uni.edu\nchi,Chi,Le,\n"
    )
    roster = outputs.read_roster(roster_file)
    results = [
        result(
            "an",
            passed=[("ch2.ring_shift", "result"), ("ch2.broadcast", "result")],
            failed=[("ch2.broadcast", "tree", "wrong", "rank 2 sent <b>3</b> chunks & more")],
            integrity={
                "ch2.broadcast": ["collectives.py line 3 (at module level): loads native code (ctypes)"]
            },
            notes=["ignored conftest.py: only the chapter's module files are graded"],
        ),
        result("binh", error="grading took longer than the 600 s limit and was stopped"),
    ]
    outputs.write_all(results, "ch2", tmp_path / "out", duedate="2026-02-28T23:59:00+00:00", roster=roster)
    out = tmp_path / "out"

    with open(out / "grades.csv", newline="") as fh:
        reader = csv.DictReader(fh)
        grades = {row["student_id"]: row for row in reader}
    assert reader.fieldnames == outputs.NBGRADER_COLUMNS
    assert grades["an"]["first_name"] == "An" and grades["an"]["email"] == "an@uni.edu"
    assert (
        grades["an"]["raw_score"] == "2.0"
        and grades["an"]["score"] == "2.0"
        and grades["an"]["max_score"] == "20.0"
    )
    assert (
        grades["chi"]["score"] == "0.0" and grades["chi"]["timestamp"] == ""
    )  # on the roster, no submission
    assert grades["an"]["duedate"] == "2026-02-28T23:59:00+00:00"

    with open(out / "grades_wide.csv", newline="") as fh:
        wide = {row["student_id"]: row for row in csv.DictReader(fh)}
    assert wide["an"]["ch2.ring_shift"] == "1" and wide["an"]["ch2.broadcast"] == "1"
    assert "loads native code (ctypes) (ch2.broadcast)" in wide["an"]["integrity"]
    assert wide["an"]["failures"] == "wrong x1" and wide["an"]["late"] == "yes"
    assert wide["binh"]["status"] == "error: timeout" and wide["chi"]["status"] == "no submission"

    html = (out / "feedback" / "an.html").read_text()
    assert "&lt;b&gt;3&lt;/b&gt; chunks &amp; more" in html and "<b>3</b>" not in html
    markdown = (out / "feedback" / "an.md").read_text()
    assert "| ch2.broadcast | 1/2 | failed |" in markdown and "ignored conftest.py" in markdown
    assert "grading stopped early" in (out / "feedback" / "binh.md").read_text()

    gradescope = json.loads((out / "gradescope" / "an" / "results.json").read_text())
    assert gradescope["score"] == 2.0
    tree = next(t for t in gradescope["tests"] if t["name"].startswith("ch2.broadcast [tree]"))
    assert tree["status"] == "failed" and tree["score"] == 0 and "chunks" in tree["output"]
    assert "loads native code" in gradescope["output"]
