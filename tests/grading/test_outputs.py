"""The teacher's files, from results alone: nbgrader's columns, the roster, the wide CSV with its
integrity column, HTML feedback that escapes what students wrote, Gradescope's format."""

import csv
import json
import os
import re
import stat

from graders.errors import Failure
from graders.gradebook import FAILED, PASSED, Gradebook
from graders.grading.reports import outputs
from graders.grading.result import StudentResult


def result(student, passed=(), failed=(), integrity=None, error="", notes=()):
    book = Gradebook(impl=student, profile="grading")
    for exercise_id, part in passed:
        book.record(exercise_id, part, PASSED)
    for exercise_id, part, kind, message in failed:
        book.record(exercise_id, part, FAILED, Failure.of(kind, message))
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


def test_late_compares_instants_and_is_empty_without_a_submission_time(tmp_path):
    results = [result("an"), result("binh"), result("chi")]
    results[0].timestamp = "2026-03-01T20:00:00+00:00"  # 03:00 the next day in Hanoi: 4 h late
    results[1].timestamp = "2026-03-01T16:00:00+00:00"  # 23:00 in Hanoi: on time
    results[2].timestamp = ""  # a folder copied by the teacher: no submission time
    outputs.write_all(results, "ch2", tmp_path, duedate="2026-03-01T23:59:00+07:00")
    with open(tmp_path / "grades_wide.csv", newline="") as fh:
        late = {row["student_id"]: row["late"] for row in csv.DictReader(fh)}
    assert late == {"an": "yes", "binh": "no", "chi": ""}


HOSTILE = (
    "expected 3\n```\n<img src=x onerror=alert(1)>\n[click](javascript:alert(1))\n\x1b[2J\x1b]0;pwned\x07"
    "\u202eevil\r\n````"
)


def test_feedback_escapes_what_students_wrote_and_strips_control_characters(tmp_path):
    hostile = result(
        "an",
        failed=[("ch2.broadcast", "tree", "wrong", HOSTILE)],
        notes=["ignored <script>x</script>.py: a symbolic link", "[x](http://e.vil) ![i](x.png) | # h"],
    )
    hostile.error, hostile.error_kind = "<b>boom</b> \x1b[31m", "killed"
    outputs.write_all([hostile], "ch2", tmp_path)
    markdown = (tmp_path / "feedback" / "an.md").read_text()
    page = (tmp_path / "feedback" / "an.html").read_text()
    for text in (markdown, page, (tmp_path / "grades_wide.csv").read_text()):
        assert not any(ch in text for ch in "\x1b\x07\u202e\r"), repr(text)
    lines = markdown.splitlines()
    fence = lines[lines.index("expected 3") - 1]
    assert fence == "`````text"  # longer than any run of backticks in the message: it cannot be closed
    block = markdown.split(fence, 1)[1].split("\n`````\n", 1)[0]
    assert "<img src=x onerror=alert(1)>" in block  # literal text inside the block, not HTML
    outside = markdown.replace(block, "")
    assert not re.search(r"(?<!\\)[<\[\]]", outside)  # every <, [ and ] is escaped
    assert "\\<script\\>" in markdown and "\\[x\\](http" in markdown and "\\| # h" in markdown
    assert "<img" not in page and "&lt;img src=x" in page and "<script>" not in page
    gradescope = json.loads((tmp_path / "gradescope" / "an" / "results.json").read_text())
    assert "\x1b" not in json.dumps(gradescope, ensure_ascii=False)


def test_a_grader_error_always_says_what_failed(tmp_path):
    silent = result("an", failed=[("ch2.broadcast", "tree", "internal", "")])
    outputs.write_all([silent], "ch2", tmp_path)
    markdown = (tmp_path / "feedback" / "an.md").read_text()
    assert "grader error" in markdown and "without saying why" in markdown
    gradescope = json.loads((tmp_path / "gradescope" / "an" / "results.json").read_text())
    tree = next(t for t in gradescope["tests"] if t["name"].startswith("ch2.broadcast [tree]"))
    assert "without saying why" in tree["output"]


def test_outputs_are_readable_by_the_teachers_group(tmp_path):
    old = os.umask(0o077)  # even a private umask leaves the group able to read
    try:
        outputs.write_all([result("an")], "ch2", tmp_path / "out")
    finally:
        os.umask(old)
    out = tmp_path / "out"
    for path in [out / "grades.csv", out / "grades_wide.csv", out / "feedback" / "an.md", out / "feedback"]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o040 and not mode & 0o004, (path, oct(mode))
        assert path.stat().st_gid == out.stat().st_gid
    assert stat.S_IMODE((out / "gradescope" / "an").stat().st_mode) & 0o050 == 0o050


def test_the_integrity_notes_read_in_the_class_language(tmp_path):
    """A note kept in every language (a scan finding, run-time tampering) is written in the
    class's language: the feedback, the wide CSV's integrity column, Gradescope's summary."""
    from graders.comm.static_scan import scan_source
    from graders.words.messages import say

    finding = scan_source("import numpy\n").findings[0]
    scanned = result("an", passed=[("ch2.ring_shift", "result")])
    tampered = say("integrity:tampered", ranks="0, 1", name="torch.distributed.all_reduce")
    scanned.book.keep_integrity({"ch2.ring_shift": ["collectives.py " + finding.said(), tampered]})
    outputs.write_all([scanned], "ch2", tmp_path, lang="vi")
    note = "collectives.py dòng 1 (ở cấp module): giữ dữ liệu trong mảng numpy (ch2.ring_shift)"
    with open(tmp_path / "grades_wide.csv", newline="") as fh:
        column = next(csv.DictReader(fh))["integrity"]
    assert note in column and "rank 0, 1 đã sửa torch.distributed.all_reduce lúc chạy" in column
    assert "keeps data" not in column
    markdown = re.sub(r"\\(.)", r"\1", (tmp_path / "feedback" / "an.md").read_text())  # escapes undone
    assert "## ghi chú liêm chính" in markdown and note in markdown
    gradescope = json.loads((tmp_path / "gradescope" / "an" / "results.json").read_text())
    assert (
        "ghi chú liêm chính (giảng viên sẽ xem lại):" in gradescope["output"] and note in gradescope["output"]
    )
