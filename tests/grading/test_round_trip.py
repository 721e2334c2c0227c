"""The GitHub Classroom round trip graded for real: one student's repository, a commit before the
due date (dave's sample) and one after it (alice's), graded by ``dtlab grade --due`` at the first.
Which commit each option chooses, ``--at-head`` and a late repository included, is intake's and is
tested without grading (test_git_history.py): one real grading run is what this file adds."""

import csv
import shutil
import subprocess

import pytest

from .test_git_history import AFTER, BEFORE, DUE, commit, new_repo

pytestmark = [
    pytest.mark.many_submissions,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]


def wide(out) -> dict:
    with open(out / "grades_wide.csv", newline="") as fh:
        return next(csv.DictReader(fh))


def test_the_due_date_chooses_what_is_graded(tmp_path, grade_command):
    repo = new_repo(tmp_path / "student-repos" / "an")
    before, after = commit(repo, "dave", BEFORE), commit(repo, "alice", AFTER)
    quick = ("--profile", "ci", "--deadline", "4", "--jobs", "1", "--no-misconceptions")
    out = tmp_path / "out"

    def grade() -> dict:
        argv = grade_command(repo.parent, out, *quick, "--due", DUE)
        run = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
        return wide(out)

    on_time = grade()
    assert (on_time["commit"], on_time["commit_time"], on_time["late"]) == (before, BEFORE, "no")
    assert int(on_time["score"]) < 20 and after != before, "dave's commit, not alice's"
    assert f"Graded at commit {before[:12]}" in (out / "feedback" / "an.md").read_text()
