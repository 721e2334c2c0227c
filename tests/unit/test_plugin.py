"""The pytest plugin: lazy for runs that collect no grader, strict about what a test grades."""

import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders.chapters.ch2 import tasks
from graders.plugin import exercise
from graders.plugin.marker import MarkerMismatch

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

NOT_A_GRADER = """
import os
from hypothesis import settings

def test_the_kit_started_nothing():
    children = open(f"/proc/self/task/{os.getpid()}/children").read().split()
    assert children == [], f"child processes: {children}"
    assert settings.default.max_examples == 100, "hypothesis's own profile (default or ci)"
    assert settings.default.deadline is not None or os.environ.get("CI"), "the kit's profiles set no deadline"
"""


def _pytest(*args, cwd, **extra_env):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_")) and k != "CI"}
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.parametrize("ci", [{}, {"CI": "true"}], ids=["laptop", "ci-machine"])
def test_a_run_without_graders_starts_no_worker_and_loads_no_profile(tmp_path, ci):
    (tmp_path / "test_other_project.py").write_text(NOT_A_GRADER)
    done = _pytest(cwd=tmp_path, **ci)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dtlab" not in done.stdout


def test_a_chapter_that_does_not_exist_fails_as_plain_pytest_does(kit_root):
    done = _pytest("exercises/ch42", cwd=kit_root)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "not found: exercises/ch42" in done.stdout + done.stderr


def test_a_test_that_runs_another_exercises_task_is_refused_at_collection():
    def test_broadcast(harness, impl):
        harness.run(tasks.reduce, impl, None)

    with pytest.raises(MarkerMismatch, match=r"tasks\.reduce, which grades ch2\.reduce"):
        exercise("ch2.broadcast", part="result")(test_broadcast)


def test_the_check_sees_through_hypothesis():
    @given(case=st.none())
    def test_ring_shift(harness, impl, case):
        harness.run(tasks.ring_all_gather, impl, case)

    with pytest.raises(MarkerMismatch, match="ring_all_gather"):
        exercise("ch2.ring_shift", part="result")(test_ring_shift)


def test_a_test_that_runs_its_own_task_is_marked():
    def test_reduce(harness, impl):
        harness.run(tasks.reduce, impl, None)

    marked = exercise("ch2.reduce", part="tree")(test_reduce)
    assert [m.args for m in marked.pytestmark] == [("ch2.reduce", "tree")]


def test_an_unknown_part_is_refused():
    with pytest.raises(KeyError, match="has no part 'speed'"):
        exercise("ch2.reduce", part="speed")


def test_a_narrowed_run_says_its_table_covers_only_what_ran(kit_root):
    """``-k`` (as ``--lf`` does) leaves graded tests out: the table says so."""
    narrowed = _pytest("exercises/ch7", "--impl", "solutions", "-k", "bubble", cwd=kit_root)
    assert narrowed.returncode == 0, narrowed.stdout + narrowed.stderr
    assert "this table covers only the tests this run chose" in narrowed.stdout
    assert "ch7.bubble_fraction" in narrowed.stdout


#: a plugin that notes every failure pytest renders itself (its traceback: about 80 ms each)
NOTES_RENDERED = """
import os
import _pytest.python

rendered = _pytest.python.Function.repr_failure

def noting(self, excinfo):
    with open(os.environ["RENDERED"], "a") as notes:
        notes.write(self.name + "\\n")
    return rendered(self, excinfo)

_pytest.python.Function.repr_failure = noting
"""

KIT_BREAKS = """
from graders.plugin import exercise

@exercise("ch2.ring_shift", part="result")
def test_the_kit_breaks(harness, impl):
    raise RuntimeError("the kit broke")
"""


def test_a_graded_failure_is_the_kits_text_and_only_the_kits_own_error_a_traceback(kit_root, tmp_path):
    (tmp_path / "notes_rendered.py").write_text(NOTES_RENDERED)
    (tmp_path / "test_kit_breaks.py").write_text(KIT_BREAKS)
    notes = tmp_path / "rendered.txt"
    done = _pytest(
        "exercises/ch2/test_collectives.py",
        str(tmp_path / "test_kit_breaks.py"),
        "--impl",
        "exercises",
        "-p",
        "notes_rendered",
        cwd=kit_root,
        PYTHONPATH=str(tmp_path),
        RENDERED=str(notes),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ch2.ring_shift [result]: not started: " in done.stdout
    assert "RuntimeError: the kit broke" in done.stdout and "Traceback" not in done.stdout
    assert notes.read_text().split() == ["test_the_kit_breaks"]  # the stubs' failures: no traceback
