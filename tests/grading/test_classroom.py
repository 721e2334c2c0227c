"""``dtlab release --github-classroom``: a GitHub Classroom template whose autograding workflow
follows Classroom's convention, passes actionlint, and scores exactly the kit's points."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from graders.authoring import classroom, devcontainer
from graders.catalog import CHAPTERS
from graders.errors import Failure, FailureKind
from graders.gradebook import FAILED, PASSED, Gradebook
from graders.plugin.run_spec import GradingRun
from graders.student import part

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("classroom") / "dtlab"
    run = subprocess.run(
        [sys.executable, "-m", "graders", "release", str(out), "--github-classroom", "--chapters", "ch2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "17 parts of ch2 (20 points, grading profile)" in run.stdout
    assert f"Codespaces: {devcontainer.PATH}" in run.stdout
    return out


def _workflow(released) -> dict:
    return yaml.safe_load((released / classroom.WORKFLOW).read_text(encoding="utf-8"))


def _grader_steps(workflow: dict) -> list[dict]:
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    return [s for s in steps if s.get("uses") == classroom.GRADER]


def test_the_workflow_follows_classrooms_convention(released):
    workflow = _workflow(released)
    assert {"push", "repository_dispatch"} <= set(workflow["on"])
    assert workflow["permissions"] == {"checks": "write", "actions": "read", "contents": "read"}
    job = workflow["jobs"]["run-autograding-tests"]
    assert job["if"] == "github.actor != 'github-classroom[bot]'"
    setup = job["steps"][: -len(_grader_steps(workflow)) - 1]
    assert [s.get("uses", "run") for s in setup] == ["actions/checkout@v5", "actions/setup-python@v6", "run"]
    assert setup[1]["with"] == {"python-version": "3.11"}
    assert "scripts/install_torch.py install" in setup[2]["run"] and "pip install" in setup[2]["run"]

    graders = _grader_steps(workflow)
    expected = {f"{e.id} {p}": points for e in CHAPTERS["ch2"].exercises for p, points in e.parts.items()}
    assert {s["with"]["test-name"]: s["with"]["max-score"] for s in graders} == expected
    assert sum(s["with"]["max-score"] for s in graders) == CHAPTERS["ch2"].points == 20
    for step in graders:
        assert set(step["with"]) == {"test-name", "setup-command", "command", "timeout", "max-score"}
        exercise, name = step["with"]["test-name"].split()
        assert step["with"]["command"].startswith(f"dtlab part {exercise} {name} --profile grading ")
        assert isinstance(step["with"]["timeout"], int) and step["with"]["timeout"] >= 30  # minutes
    ids = [s["id"] for s in graders]
    assert len(set(ids)) == len(ids)

    reporter = job["steps"][-1]
    assert reporter["uses"] == classroom.REPORTER
    assert reporter["with"]["runners"] == ",".join(ids)
    assert reporter["env"] == {f"{i.upper()}_RESULTS": f"${{{{ steps.{i}.outputs.result }}}}" for i in ids}


def test_the_whole_course_template_is_worth_the_kits_points():
    workflow = yaml.safe_load(classroom.workflow())
    graders = _grader_steps(workflow)
    assert sum(s["with"]["max-score"] for s in graders) == sum(c.points for c in CHAPTERS.values())
    assert len(graders) == sum(len(e.parts) for c in CHAPTERS.values() for e in c.exercises)


def _actionlint() -> str:
    found = shutil.which("actionlint") or shutil.which("actionlint", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("actionlint is not installed: pip install -e '.[dev]' (CI installs it)")
    return found


def test_actionlint_passes_the_workflow(released, tmp_path):
    actionlint = _actionlint()
    whole = tmp_path / ".github" / "workflows" / "classroom.yml"
    whole.parent.mkdir(parents=True)
    whole.write_text(classroom.workflow(), encoding="utf-8")
    for path in (released / classroom.WORKFLOW, whole):
        run = subprocess.run([actionlint, "-no-color", str(path)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stdout + run.stderr


def test_chapters_choose_what_the_workflow_grades(tmp_path):
    def release(*options):
        argv = [sys.executable, "-m", "graders", "release", str(tmp_path / "out"), *options]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120)

    assert "--github-classroom" in release("--chapters", "ch2").stderr  # --chapters alone: refused
    assert "unknown chapter 'ch12'" in release("--github-classroom", "--chapters", "ch12").stderr
    assert not (tmp_path / "out").exists()


def test_the_releases_gitignore_keeps_the_workflow(released, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=30)
    shutil.copy(released / ".gitignore", tmp_path / ".gitignore")
    for kept in (classroom.WORKFLOW, devcontainer.PATH):
        ignored = subprocess.run(["git", "-C", str(tmp_path), "check-ignore", "-q", kept], timeout=30)
        assert ignored.returncode == 1, f"{kept} would not be pushed with the template"


def test_the_template_opens_in_a_codespace(released):
    """The dev container (tests/grading/test_devcontainer.py checks its content) is in the release."""
    assert json.loads((released / devcontainer.PATH).read_text(encoding="utf-8")) == devcontainer.config()
    assert (released / "scripts" / "setup.sh").is_file() and (released / "exercises").is_dir()


def test_a_part_scores_alone_from_the_chapters_kept_gradebook(tmp_path, capsys):
    """Partial credit inside an exercise: each step reads its own part's line of the one gradebook
    kept for the chapter, and a banned call found by one part's test costs every part."""
    run = GradingRun(impl="solutions", profile="grading").with_defaults()  # as dtlab part builds it
    book = Gradebook(impl="solutions", profile="grading")
    book.record("ch2.broadcast", "result", PASSED)
    book.record("ch2.broadcast", "tree", FAILED, Failure.of(FailureKind.WRONG, "a flat fan-out"))
    book.record("ch2.reduce", "result", PASSED)
    book.record("ch2.reduce", "tree", FAILED, Failure.of(FailureKind.BANNED, "dist.reduce is banned"))
    kept = part.kept_path(tmp_path, run, "ch2")
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps({"chapter": "ch2", "book": book.to_dict(), "error": "", "seconds": 1.0}))
    verdicts = {
        (exercise, name): part.main(exercise, name, run=run, gradebooks=tmp_path)
        for exercise in ("ch2.broadcast", "ch2.reduce")
        for name in ("result", "tree")
    }
    assert verdicts == {
        ("ch2.broadcast", "result"): 0,
        ("ch2.broadcast", "tree"): 1,
        ("ch2.reduce", "result"): 1,
        ("ch2.reduce", "tree"): 1,
    }
    out = capsys.readouterr().out
    assert "ch2.broadcast [result]: 1/1 passed" in out and "ch2.broadcast [tree]: 0/1 failed" in out


def _run_steps(released, home) -> dict[str, tuple[int, int, str]]:
    """Every grader step's setup and command, as the command grader runs them: through ``sh -c``,
    in the repository, with only ``PATH`` and ``HOME`` (and ``FORCE_COLOR``) of the environment.
    The kit's interpreter stands for the one the workflow's set-up steps install, and
    ``PYTHONPATH`` for its ``pip install -e .`` of the release (the release's own graders)."""
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.defpath]),
        "HOME": str(home),
        "FORCE_COLOR": "true",
        "PYTHONPATH": str(released),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    verdicts = {}
    for step in _grader_steps(_workflow(released)):
        inputs = step["with"]
        limit = inputs["timeout"] * 60
        if inputs["setup-command"]:
            setup = subprocess.run(inputs["setup-command"], shell=True, cwd=released, env=env, timeout=limit)
            assert setup.returncode == 0, inputs
        run = subprocess.run(
            inputs["command"],
            shell=True,
            cwd=released,
            env=env,
            capture_output=True,
            text=True,
            timeout=limit,
        )
        assert "Traceback" not in run.stdout + run.stderr, run.stdout + run.stderr
        verdicts[inputs["test-name"]] = (run.returncode, inputs["max-score"], run.stdout)
    return verdicts


def _kept_book(home) -> dict:
    """The chapter's gradebook the steps graded once and kept (``pytest exercises/ch2`` with the
    grading profile, in the release): the kit's own score of the same submission."""
    (kept,) = (home / ".cache" / "dtlab" / "classroom").glob("ch2-grading-*.json")
    return json.loads(kept.read_text())["book"]


@pytest.mark.slow
def test_every_step_runs_in_the_release_and_scores_the_kits_points(released, kit_root, tmp_path):
    released = shutil.copytree(released, tmp_path / "student")  # a student's copy of the template
    verdicts = _run_steps(released, tmp_path / "stubs")
    assert {rc for rc, _, _ in verdicts.values()} == {1}, "a stub earned points"
    assert all("not started" in out for _, _, out in verdicts.values())
    assert _kept_book(tmp_path / "stubs")["score"] == 0

    for path in (kit_root / "solutions" / "ch2").glob("*.py"):
        shutil.copy(path, released / "exercises" / "ch2" / path.name)
    verdicts = _run_steps(released, tmp_path / "solutions")
    book = _kept_book(tmp_path / "solutions")
    score = sum(points for rc, points, _ in verdicts.values() if rc == 0)
    assert score == book["score"] == book["max_score"] == CHAPTERS["ch2"].points, verdicts
    statuses = {
        f"{row['exercise']} {p['part']}": p["status"] for row in book["exercises"] for p in row["parts"]
    }
    assert {name: rc == 0 for name, (rc, _, _) in verdicts.items()} == {
        name: status == PASSED for name, status in statuses.items()
    }
