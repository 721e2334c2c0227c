"""Hostile submissions in one batch with an honest one: each ends with a clear reason of its own,
the honest student keeps full marks, and every row of every output is there and well formed.

The samples are in fixtures/submissions/adversarial (each misbehaves in ring_shift; the rest of
its file is the untouched stub). Alice is the honest student of fixtures/submissions/ch2.
"""

import csv
import json
import shutil
import subprocess

import pytest

from graders.grading import sandbox

SAMPLES = [
    "hang",
    "infinite_loop",
    "rank_exit",
    "segfault",
    "memory_bomb",
    "fork_bomb",
    "forged_results",
    "monkeypatch_grader",
    "print_flood",
    "trojan_files",
    "snoop",
]


ISOLATION = sandbox.detect()
pytestmark = pytest.mark.skipif(
    not (ISOLATION.namespaces and ISOLATION.cgroup and ISOLATION.drop_uid),
    reason="hostile samples run only inside the full sandbox (root, namespaces, cgroup): "
    + ISOLATION.describe(),
)


@pytest.fixture(scope="module")
def batch(kit_root, tmp_path_factory, grade_command):
    submissions = tmp_path_factory.mktemp("adversarial")
    for name in SAMPLES:
        shutil.copytree(kit_root / "fixtures/submissions/adversarial" / name, submissions / name)
    shutil.copytree(kit_root / "fixtures/submissions/ch2/alice", submissions / "alice")
    out = tmp_path_factory.mktemp("out")
    limits = "--profile ci --jobs 2 --deadline 3 --timeout 120 --memory-mb 2048 --pids 256"
    command = grade_command(submissions, out, *limits.split())
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    with open(out / "grades_wide.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return out, {row["student_id"]: row for row in rows}, rows, run.stdout


def reason(batch, student):
    """The feedback on ring_shift (the exercise every sample attacks)."""
    out = batch[0]
    text = (out / "feedback" / f"{student}.md").read_text()
    return text


def test_the_honest_student_keeps_full_marks(batch):
    _, rows, _, _ = batch
    assert rows["alice"]["score"] == "20" and rows["alice"]["status"] == "graded"


def test_no_row_is_lost_or_corrupted(batch):
    out, rows, raw, _ = batch
    assert sorted(rows) == sorted(SAMPLES + ["alice"]) and len(raw) == len(SAMPLES) + 1
    for row in raw:
        assert row["max_score"] == "20" and 0 <= int(row["score"]) <= 20
    with open(out / "grades.csv", newline="") as fh:
        grades = list(csv.DictReader(fh))
    assert sorted(r["student_id"] for r in grades) == sorted(rows)
    for student in rows:
        results = json.loads((out / "gradescope" / student / "results.json").read_text())
        assert results["score"] == float(rows[student]["score"])
        assert (out / "feedback" / f"{student}.html").read_text().startswith("<!DOCTYPE html>")


def test_hang_and_infinite_loop_are_stopped_at_the_deadline(batch):
    for student in ("hang", "infinite_loop"):
        text = reason(batch, student)
        assert "hang (deadline passed)" in text and "did not finish within its 3 s deadline" in text, student
        assert "in ring_shift" in text


def test_one_rank_exiting_is_a_crash_naming_the_rank(batch):
    text = reason(batch, "rank_exit")
    assert "rank 1 crashed" in text and "exited with code 3" in text


def test_a_segfault_is_a_crash_with_its_signal(batch):
    assert "killed by SIGSEGV" in reason(batch, "segfault")


def test_a_memory_bomb_is_refused_at_once(batch):
    text = reason(batch, "memory_bomb")
    assert "can't allocate memory" in text and "53687091200 bytes" in text


def test_a_fork_bomb_is_contained(batch):
    _, rows, _, _ = batch
    text = reason(batch, "fork_bomb")
    assert "hang (deadline passed)" in text or "ceiling of 256 processes" in text
    assert rows["fork_bomb"]["score"] == "0"


def test_a_forged_report_is_never_read(batch):
    out, rows, _, _ = batch
    assert rows["forged_results"]["score"] == "0"
    assert "wrong result" in reason(batch, "forged_results")
    stored = json.loads((out / ".dtlab/results/forged_results.json").read_text())
    assert stored["result"]["book"]["score"] == 0  # the batch's own record, not a forged one


def test_a_grader_patched_from_graded_code_is_never_reached(batch):
    text = reason(batch, "monkeypatch_grader")
    assert "goes around the graders' guard" in text
    assert "imports the grading kit" in text


def test_a_print_flood_is_cut_and_grading_goes_on(batch):
    _, rows, _, _ = batch
    assert rows["print_flood"]["ch2.ring_shift"] == "1"  # its ring_shift is right after the flood


def test_files_that_would_hijack_pytest_are_ignored_and_noted(batch):
    _, rows, _, _ = batch
    assert rows["trojan_files"]["ch2.ring_shift"] == "1" and rows["trojan_files"]["score"] == "1"
    for name in ("conftest.py", "pytest.ini", "sitecustomize.py", "evil.pth"):
        assert f"ignored {name}" in rows["trojan_files"]["notes"]


def test_graded_code_sees_no_answers_no_network_and_no_privilege(batch):
    text = reason(batch, "snoop")
    assert "env=[] path=[]" in text  # nothing in the environment or sys.path names the solutions
    if ISOLATION.pivot_root:
        assert "solutions=False hidden=False fixtures=False" in text
    assert "interfaces=['lo']" in text and "uid=0" not in text


def test_integrity_flags_are_in_the_wide_csv_and_the_summary(batch):
    _, rows, _, stdout = batch
    assert "ends the process (os._exit)" in rows["rank_exit"]["integrity"]
    assert "failures by kind:" in stdout and "isolation:" in stdout
