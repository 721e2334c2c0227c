"""nbgrader end to end, as docs/lms.md documents it: real generate_assignment, release_assignment,
collect, autograde, generate_feedback and release_feedback; the scores in nbgrader's gradebook
come from the sandboxed grader, and no edit of a notebook changes them.

The students fetch, submit and fetch their feedback through a real exchange folder, with
nbgrader's own exchange classes run in this process (what ``nbgrader fetch_assignment``,
``submit`` and ``fetch_feedback`` run, ``--student`` naming the student), so that five students
cost no more interpreters than one.

Notebook cells run in the student's kernel, outside any sandbox, so dtlab's notebook scores nothing
itself: its points are task cells, autograde runs no cell, and ``dtlab nbgrader grade`` writes the
scores of the ``.py`` files, graded in the sandbox, into the gradebook through nbgrader's API.
Mallory submits the stubs with a notebook edited in every way that mattered before (the issue's
one-line exploit, task cells turned into graded cells that print full marks, forged outputs, an
extra graded cell, a cell that writes to the gradebook); Stub submits the same files with the
notebook as released; Alice and Dave are honest.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.catalog import CHAPTERS

#: skipped without the nbgrader extra, found without importing it (about 4 s, which every session
#: that collects this module and deselects it would pay)
pytestmark = [
    pytest.mark.many_submissions,
    pytest.mark.skipif(importlib.util.find_spec("nbgrader") is None, reason="nbgrader is not installed"),
]

EXPECTED = {"alice": 20, "dave": 1, "mallory": 0, "trudy": 0, "stub": 0}
EXERCISES = [e.id.replace(".", "_") for e in CHAPTERS["ch2"].exercises]


def nbgrader(course, *args, refused=()):
    """Run nbgrader; it may fail only for the ``refused`` students (whose notebook it rejects)."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",  # nbgrader runs `alembic`
    }
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    failed = {
        line.split("for student '")[1].split("'")[0]
        for line in run.stderr.splitlines()
        if "There was an error processing assignment '" in line
    }
    assert failed == set(refused), run.stdout[-3000:] + run.stderr[-3000:]
    assert run.returncode == (1 if refused else 0), run.stdout[-3000:] + run.stderr[-3000:]
    return run


def dtlab_grade(course):
    command = [sys.executable, "-m", "graders", "nbgrader", "grade", str(course), "ch2", "--profile", "ci"]
    run = subprocess.run(command + ["--deadline", "5"], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


def as_student(step: str, exchange: Path, home: Path, student: str) -> None:
    """A student's nbgrader command (``fetch_assignment``, ``submit``, ``fetch_feedback``) for
    ch2, run from ``home`` as ``nbgrader STEP ch2 --course dtlab --student STUDENT`` runs it."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import default
    from traitlets.config import Config

    kinds = {
        "fetch_assignment": default.ExchangeFetchAssignment,
        "submit": default.ExchangeSubmit,
        "fetch_feedback": default.ExchangeFetchFeedback,
    }
    config = Config()
    config.Exchange.root = str(exchange)
    config.Exchange.assignment_dir = str(home)
    config.Exchange.cache = str(home / ".nbgrader_cache")  # where submit keeps what fetch_feedback reads
    config.CourseDirectory.course_id = "dtlab"
    config.CourseDirectory.assignment_id = "ch2"
    config.CourseDirectory.student_id = student
    coursedir = CourseDirectory(config=config)
    kinds[step](coursedir=coursedir, authenticator=Authenticator(config=config), config=config).start()


def output(text):
    return {
        "output_type": "execute_result",
        "execution_count": 1,
        "metadata": {},
        "data": {"text/plain": text},
    }


EXPLOIT = (
    "from graders import catalog\n"
    "grader.points = lambda e: float(catalog.exercise(e).points)\n"  # the one-line exploit
    "grader.show = lambda e: print(e, 'full marks')\n"
    "import sqlite3\n"
    "sqlite3.connect('../../../gradebook.db').execute('update grade set auto_score = 99')\n"
)


def exploit(notebook: dict) -> dict:
    """The edits nbgrader accepts: an added cell (the exploit) and forged outputs everywhere."""
    cells = notebook["cells"]
    cells.insert(
        2, {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [], "source": EXPLOIT}
    )
    for cell in cells:
        if cell["cell_type"] == "code":
            cell["outputs"] = [output("20")]
    return notebook


def tamper(notebook: dict) -> dict:
    """Edits nbgrader refuses (its autograde fails): task cells turned into graded cells, a bonus cell."""
    for cell in notebook["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("task"):
            points = str(meta["points"])
            cell.update(cell_type="code", source=points, execution_count=1, outputs=[output(points)])
            meta.update(task=False, grade=True, locked=False)
    bonus = {"grade": True, "grade_id": "bonus", "points": 100, "locked": False, "solution": False}
    notebook["cells"].append(
        {
            "cell_type": "code",
            "metadata": {"nbgrader": {**bonus, "task": False, "schema_version": 3}},
            "execution_count": 1,
            "outputs": [output("100")],
            "source": "100",
        }
    )
    return notebook


@pytest.fixture(scope="module")
def course(kit_root, tmp_path_factory):
    """The documented sequence up to the scores; returns the course, dtlab's report, the exchange
    and the students' home folders."""
    course = tmp_path_factory.mktemp("course")
    exchange = tmp_path_factory.mktemp("exchange")
    homes = tmp_path_factory.mktemp("students")
    run = subprocess.run(
        [sys.executable, "-m", "graders", "nbgrader", "init", str(course), "--chapters", "ch2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    with (course / "nbgrader_config.py").open("a") as config:
        config.write(f"c.Exchange.root = {str(exchange)!r}\n")
    nbgrader(course, "generate_assignment", "ch2")
    nbgrader(course, "release_assignment", "ch2")
    sources = {"alice": "alice", "dave": "dave", "mallory": None, "trudy": None, "stub": None}
    edits = {"mallory": exploit, "trudy": tamper}
    for student, sample in sources.items():
        home = homes / student
        home.mkdir()
        as_student("fetch_assignment", exchange, home, student)
        folder = home / "ch2"
        if sample:
            for path in (kit_root / "fixtures/submissions/ch2" / sample).glob("*.py"):
                shutil.copyfile(path, folder / path.name)
        if student in edits:
            notebook = folder / "ch2.ipynb"
            notebook.write_text(json.dumps(edits[student](json.loads(notebook.read_text()))))
        as_student("submit", exchange, home, student)
    nbgrader(course, "collect", "ch2")
    nbgrader(course, "autograde", "ch2", refused=["trudy"])
    graded = dtlab_grade(course)
    return course, graded.stdout, exchange, homes


def gradebook_scores(course):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "dtlab") as gb:
        found = {}
        for student in EXPECTED:
            submission = gb.find_submission("ch2", student)
            grades = {g.name: g.score for g in gb.find_submission_notebook("ch2", "ch2", student).grades}
            found[student] = (submission.score, submission.max_score, grades)
    return found


def test_scores_and_partial_credit_come_back_from_the_gradebook(course):
    found = gradebook_scores(course[0])
    for student, expected in EXPECTED.items():
        score, max_score, grades = found[student]
        assert (score, max_score) == (expected, CHAPTERS["ch2"].points), student
        assert set(grades) == set(EXERCISES), student
    dave = found["dave"][2]
    assert dave["ch2_ring_shift"] == 1 and dave["ch2_ring_all_reduce"] == 0


def test_no_notebook_edit_changes_a_recorded_score(course):
    found = gradebook_scores(course[0])
    assert found["mallory"] == found["trudy"] == found["stub"]  # the same .py files: the same scores


def test_autograde_alone_gives_nobody_points_and_never_runs_a_cell(kit_root, tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "graders", "nbgrader", "init", str(tmp_path), "--chapters", "ch2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    nbgrader(tmp_path, "generate_assignment", "ch2")
    folder = tmp_path / "submitted" / "mallory" / "ch2"
    shutil.copytree(tmp_path / "release" / "ch2", folder)
    (folder / "ch2.ipynb").write_text(json.dumps(exploit(json.loads((folder / "ch2.ipynb").read_text()))))
    nbgrader(tmp_path, "autograde", "ch2")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", "dtlab") as gb:
        submission = gb.find_submission("ch2", "mallory")
        assert submission.score == 0 and submission.needs_manual_grade  # waiting for dtlab's scores
    autograded = json.loads((tmp_path / "autograded" / "mallory" / "ch2" / "ch2.ipynb").read_text())
    assert not any(cell.get("outputs") for cell in autograded["cells"])  # no cell ran


def test_a_later_autograde_keeps_the_recorded_scores(course):
    before = gradebook_scores(course[0])
    nbgrader(course[0], "autograde", "ch2", "--force", refused=["trudy"])
    assert gradebook_scores(course[0]) == before


def test_the_students_files_were_graded_not_the_stubs(course, kit_root):
    autograded = course[0] / "autograded" / "alice" / "ch2"
    assert (autograded / "collectives.py").read_text() == (
        kit_root / "fixtures/submissions/ch2/alice/collectives.py"
    ).read_text()


def test_the_released_feedback_reaches_the_student_with_the_graders_messages(course):
    course_dir, _, exchange, homes = course
    dtlab_grade(course_dir)  # after the later autograde: the comments again (it resumes every student)
    nbgrader(course_dir, "generate_feedback", "ch2", "--force")
    html = (course_dir / "feedback" / "dave" / "ch2" / "ch2.html").read_text()
    assert "ring_all_reduce" in html and "banned" in html
    nbgrader(course_dir, "release_feedback", "ch2")
    as_student("fetch_feedback", exchange, homes / "dave", "dave")
    fetched = list((homes / "dave" / "ch2" / "feedback").glob("*/ch2.html"))
    assert [path.read_text() for path in fetched] == [html]


def test_dtlabs_own_outputs_are_in_the_course(course):
    out = course[0] / "dtlab" / "ch2"
    assert (out / "grades.csv").exists() and (out / "feedback" / "alice.md").exists()
    assert "5 student(s)" in course[1] and "nbgrader gradebook" in course[1]
