"""The student release holds no answer and works on its own; the Gradescope zip grades like dtlab grade."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

from graders.authoring import release
from graders.authoring.stubs import solution_lines
from graders.catalog import CHAPTERS, EXERCISES


@pytest.fixture(scope="module")
def released(kit_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "dtlab"
    run = subprocess.run(
        [sys.executable, "-m", "graders", "release", str(out)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_no_solution_line_appears_anywhere_in_the_release(released, kit_root):
    texts = {}
    for path in released.rglob("*"):
        if path.is_file():
            texts[path] = path.read_text(encoding="utf-8", errors="replace")
    all_lines = {line.strip() for text in texts.values() for line in text.splitlines()}
    checked = 0
    for solution in sorted((kit_root / "solutions").rglob("*.py")):
        for line in solution_lines(solution.read_text()):
            if release.identifying(line):
                assert line not in all_lines, f"{solution.name}: {line!r} is in the release"
                checked += 1
            else:  # only short, generic statements are not identifying
                assert len(line) < release.MIN_IDENTIFYING, line
    assert checked > 50
    assert release.find_leaks(released) == []


def test_teacher_only_parts_are_left_out(released):
    present = {p.relative_to(released).as_posix() for p in released.rglob("*")}
    for gone in ("solutions", "hidden", "fixtures/mutants", "fixtures/submissions", "tests", ".ci"):
        assert gone not in present and not any(p.startswith(gone + "/") for p in present), gone
    for chapter in CHAPTERS:
        assert f"exercises/{chapter}/README.md" in present
        assert any(p.startswith(f"exercises/{chapter}/test_") for p in present)
    assert "graders/plugin/pytest_plugin.py" in present and "scripts/setup.sh" in present


def _release_env(released):
    return {**os.environ, "PYTHONPATH": str(released), "PYTHONDONTWRITEBYTECODE": "1"}


def test_pytest_runs_in_the_release_and_every_exercise_is_not_started(released, tmp_path):
    env = _release_env(released)
    where = subprocess.run(
        [sys.executable, "-c", "import graders; print(graders.__file__)"],
        cwd=released,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip().startswith(str(released)), where.stdout  # the release's own graders
    report = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises/ch2", "-q", f"--dtlab-report={report}"],
        cwd=released,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    book = json.loads(report.read_text())
    assert {row["status"] for row in book["exercises"]} == {"not started"}
    assert {row["exercise"] for row in book["exercises"]} == {e for e in EXERCISES if e.startswith("ch2.")}
    assert "Traceback" not in run.stdout


def test_a_release_is_never_written_over_an_existing_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    run = subprocess.run(
        [sys.executable, "-m", "graders", "release", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and (tmp_path / "keep.txt").read_text() == "mine"


def test_gradescope_autograder_zip_runs_the_same_graders(kit_root, tmp_path):
    archive = tmp_path / "autograder.zip"
    run = subprocess.run(
        [sys.executable, "-m", "graders", "gradescope", "build", "--chapter", "ch2", "--out", str(archive)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    root = tmp_path / "autograder"
    source = root / "source"
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        zf.extractall(source)
    assert {"setup.sh", "run_autograder", "dtlab.json"} <= set(names)
    assert any(n.startswith("kit/hidden/ch2/test_") for n in names)  # hidden graders travel with it
    assert not any(
        n.startswith(("kit/solutions", "kit/fixtures/submissions", "kit/fixtures/mutants")) for n in names
    )
    assert release.find_leaks(source) == []
    (root / "submission").mkdir()
    for path in (kit_root / "fixtures/submissions/ch2/dave").iterdir():
        (root / "submission" / path.name).write_bytes(path.read_bytes())
    env = {
        **os.environ,
        "DTLAB_AUTOGRADER_ROOT": str(root),
        "DTLAB_PYTHON": sys.executable,
        "DTLAB_GRADESCOPE_PROFILE": "ci",
    }
    run = subprocess.run(
        ["bash", str(source / "run_autograder")], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 1.0  # Dave: ring_shift right, a banned all_reduce, the rest not started
    tests = {t["name"].split(" ·")[0]: t for t in results["tests"]}
    assert set(tests) == {f"{e.id} [{p}]" for e in CHAPTERS["ch2"].exercises for p in e.parts}
    for test in results["tests"]:
        assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}
    assert tests["ch2.ring_shift [result]"]["status"] == "passed"
    assert tests["ch2.ring_all_reduce [result]"]["score"] == 0
    assert "banned" in results["output"]
