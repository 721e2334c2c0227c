"""exercises/ is generated from solutions/, and the generated stubs fail cleanly as "not started"."""

import json
import subprocess
import sys

import pytest

from graders.authoring.stubs import StubError, generate_stub, solution_lines, sync
from graders.catalog import EXERCISES
from graders.errors import TODO_MARKER

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

SOLUTION = '''"""Doc."""

import torch


def given(x):
    return x


def todo(x, group=None):
    """Contract."""
    ### BEGIN SOLUTION
    y = x + 1
    return y
    ### END SOLUTION


class Thing:
    def method(self):
        ### BEGIN SOLUTION
        return 1
        ### END SOLUTION

    ### BEGIN SOLUTION
    def _private_helper(self):
        return 3

    ### END SOLUTION


### BEGIN SOLUTION
def _helper():
    return 2
### END SOLUTION
'''


def test_solution_bodies_become_todo_errors_and_helpers_disappear():
    stub = generate_stub(SOLUTION, "ch9", "mod.py")
    assert f'raise NotImplementedError("{TODO_MARKER} ch9/mod.py: implement todo")' in stub
    assert "implement Thing.method" in stub
    assert "_helper" not in stub and "y = x + 1" not in stub and "_private_helper" not in stub
    assert '"""Contract."""' in stub and "def given(x):" in stub
    compile(stub, "stub", "exec")


def test_unbalanced_markers_are_refused():
    with pytest.raises(StubError):
        generate_stub("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "ch9", "m.py")
    with pytest.raises(StubError):
        generate_stub("def f():\n    return 1\n    ### END SOLUTION\n", "ch9", "m.py")


def test_solution_lines_lists_what_a_release_must_not_contain():
    assert solution_lines(SOLUTION) == [
        "y = x + 1",
        "return y",
        "return 1",
        "def _private_helper(self):",
        "return 3",
        "def _helper():",
        "return 2",
    ]


def test_exercises_are_in_sync_with_solutions(kit_root):
    drifts = sync(kit_root, check=True)
    assert not drifts, "exercises/ is out of date, run `dtlab stubs`:\n" + "\n".join(d.diff for d in drifts)


def test_stubs_report_every_exercise_not_started_in_one_line(kit_root, tmp_path):
    report = tmp_path / "report.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(kit_root / "exercises"),
            "--impl",
            "exercises",
            f"--dtlab-report={report}",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--rootdir={kit_root}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert run.returncode == 1, run.stdout[-3000:]
    book = json.loads(report.read_text())
    assert {row["status"] for row in book["exercises"]} == {"not started"}
    assert {row["exercise"] for row in book["exercises"]} == set(EXERCISES)
    assert book["score"] == 0
    assert "Traceback" not in run.stdout
    tests = sum(len(e.parts) for e in EXERCISES.values())
    assert run.stdout.count("not started: ") >= tests  # one line per test
    # a stub passes no test either (a refusal its given check makes is no work of the student's)
    summary = run.stdout.strip().splitlines()[-1]
    assert " passed" not in summary and " failed" in summary, summary
