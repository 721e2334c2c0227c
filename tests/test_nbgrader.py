"""nbgrader end to end: dtlab's course layout, nbgrader's own generate_assignment and autograde,
and the partial credit of every exercise read back from nbgrader's gradebook."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.catalog import CHAPTERS

pytest.importorskip("nbgrader")

STUDENTS = {"alice": 20, "dave": 1}


def nbgrader(course, *args):
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",  # nbgrader runs `alembic`
        "DTLAB_NOTEBOOK_PROFILE": "ci",
    }
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


@pytest.fixture(scope="module")
def course(kit_root, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    run = subprocess.run(
        [sys.executable, "-m", "graders", "nbgrader", "init", str(course), "--chapters", "ch2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    nbgrader(course, "generate_assignment", "ch2")
    for student in STUDENTS:
        folder = course / "submitted" / student / "ch2"
        shutil.copytree(course / "release" / "ch2", folder)
        for path in (kit_root / "fixtures/submissions/ch2" / student).glob("*.py"):
            shutil.copyfile(path, folder / path.name)
        (folder / "timestamp.txt").write_text("2026-03-02 09:15:00.000000 UTC")
    nbgrader(course, "autograde", "ch2")
    return course


def test_the_release_has_the_notebook_and_the_stub_files(course, kit_root):
    released = course / "release" / "ch2"
    assert (released / "ch2.ipynb").exists()
    for module in CHAPTERS["ch2"].modules:
        assert (released / f"{module}.py").read_text() == (
            kit_root / "exercises/ch2" / f"{module}.py"
        ).read_text()


def test_scores_and_partial_credit_come_back_from_the_gradebook(course):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "dtlab") as gb:
        for student, expected in STUDENTS.items():
            submission = gb.find_submission("ch2", student)
            assert submission.score == expected and submission.max_score == CHAPTERS["ch2"].points
            grades = {g.name: g.score for g in gb.find_submission_notebook("ch2", "ch2", student).grades}
            assert set(grades) == {e.id.replace(".", "_") for e in CHAPTERS["ch2"].exercises}
        dave = {g.name: g.score for g in gb.find_submission_notebook("ch2", "ch2", "dave").grades}
    assert dave["ch2_ring_shift"] == 1 and dave["ch2_ring_all_reduce"] == 0


def test_the_students_files_were_graded_not_the_stubs(course, kit_root):
    autograded = course / "autograded" / "alice" / "ch2"
    assert (autograded / "collectives.py").read_text() == (
        kit_root / "fixtures/submissions/ch2/alice/collectives.py"
    ).read_text()


def test_generate_feedback_shows_the_graders_messages(course):
    nbgrader(course, "generate_feedback", "ch2")
    html = (course / "feedback" / "dave" / "ch2" / "ch2.html").read_text()
    assert "ring_all_reduce" in html and "banned" in html
