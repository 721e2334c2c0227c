"""The main job end to end: `dtlab grade` on the bundled sample submissions of chapter 2."""

import csv
import re
import subprocess
import sys

import pytest

from graders.chapters.ch2 import cases, tasks
from graders.errors import BannedCall
from graders.impl import Impl

pytestmark = pytest.mark.many_submissions

EXPECTED_SCORES = {"alice": 20, "bob": 17, "carol": 2, "dave": 1, "erin": 0, "frank": 0, "mallory": 0}


@pytest.fixture(scope="module")
def graded(kit_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("grades")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "graders",
            "grade",
            str(kit_root / "fixtures/submissions/ch2"),
            "--chapter",
            "ch2",
            "--out",
            str(out),
            "--profile",
            "ci",
            "--jobs",
            "2",
            "--deadline",
            "4",
            "--similarity",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    with open(out / "grades_wide.csv") as fh:
        rows = {row["student_id"]: row for row in csv.DictReader(fh)}
    return out, rows, run.stdout


def test_scores(graded):
    _, rows, _ = graded
    assert {sid: int(row["score"]) for sid, row in rows.items()} == EXPECTED_SCORES
    assert all(row["max_score"] == "20" for row in rows.values())


def test_grades_csv_has_nbgrader_export_columns(graded):
    out, _, _ = graded
    with open(out / "grades.csv") as fh:
        reader = csv.DictReader(fh)
        rows = {row["student_id"]: row for row in reader}
    assert reader.fieldnames == [
        "assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
        "raw_score", "late_submission_penalty", "score", "max_score",
    ]  # fmt: skip
    assert {sid: float(row["score"]) for sid, row in rows.items()} == EXPECTED_SCORES
    assert rows["alice"]["assignment"] == "ch2" and rows["alice"]["max_score"] == "20.0"


def test_grading_flags_the_pair_written_from_one_another(graded):
    """bob is alice's code with one bug; the few lines erin wrote before her syntax error are
    carol's (the samples were written from one another)."""
    out, _, stdout = graded
    with open(out / "similarity.csv") as fh:
        pairs = [(row["first"], row["second"]) for row in csv.DictReader(fh)]
    assert pairs == [("alice", "bob"), ("carol", "erin")]
    assert "alice ↔ bob" in stdout and "never penalised" in stdout
    assert "<summary>alice ↔ bob</summary>" in (out / "similarity.html").read_text()
    report = (out / "report.html").read_text()
    assert "<h2>Most similar pairs</h2>" in report and "<td>alice</td><td>bob</td>" in report
    assert "<td>hang</td>" in report and (out / "report" / "scores.png").exists()


def test_failing_exercises_are_named_after_the_misconception_they_behave_like(graded):
    """bob splits with Tensor.chunk and carol sends first on every rank: two mutants of the library;
    dave's and frank's bugs are no known mutant's and are left unrecognised."""
    assert "Your ring_reduce_scatter behaves like one that splits with Tensor.chunk" in feedback(
        graded, "bob"
    )
    assert "Your ring_shift behaves like one that calls a blocking send before its recv" in feedback(
        graded, "carol"
    )
    assert "behaves like" not in feedback(graded, "dave") + feedback(graded, "alice")
    out, _, stdout = graded
    report = (out / "report.html").read_text()
    assert "<h2>Misconceptions</h2>" in report
    assert "<td>unrecognised</td><td>1</td><td>14%</td><td>dave</td>" in report
    assert "naming misconceptions" in stdout


def feedback(graded, student):
    out, _, _ = graded
    return (out / "feedback" / f"{student}.md").read_text()


def test_the_subtle_bug_costs_exactly_its_exercise(graded):
    _, rows, _ = graded
    assert rows["bob"]["ch2.ring_reduce_scatter"] == "0"
    assert "expected shape" in feedback(graded, "bob")


def test_deadlock_is_reported_as_a_hang_naming_the_blocked_sends(graded):
    text = feedback(graded, "carol")
    assert "hang (deadline passed)" in text and "blocked in send" in text
    assert "ch2.ring_all_gather | 2/2 | passed" in text


def test_banned_collective(graded):
    text = feedback(graded, "dave")
    assert "torch.distributed.all_reduce" in text and "banned" in text


def test_syntax_error(graded):
    assert "does not compile (line 10" in feedback(graded, "erin")


def test_a_rank_killed_by_gloo_is_a_crash_report(graded):
    text = feedback(graded, "frank")
    assert "crash" in text and re.search("SIG(ABRT|SEGV)", text) and "different sizes" in text


def test_monkeypatching_is_flagged(graded):
    text = feedback(graded, "mallory")
    assert "reassigns torch.allclose" in text


def test_monkeypatching_inside_the_worker_cannot_reach_the_kit(harness, kit_root):
    """Skip the static scan: run Mallory's code directly. Its import of the kit is refused."""
    impl = Impl.resolve(kit_root / "fixtures/submissions/ch2/mallory")
    case = cases.build_collective(2, None, (4,), "float32", "sum", seed=3, show=("shape", "dtype", "op"))
    with pytest.raises(BannedCall, match=r"imports the grading kit.*\(graders\)"):
        harness.pool.run(tasks.ring_all_reduce, impl, case)
