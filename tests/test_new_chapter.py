"""A chapter declares itself: a new one is a few folders and nothing else.

A copy of the kit gets the throwaway chapter ``ch99`` of ``fixtures/new_chapter/``, whose files
lie only in ``graders/chapters/ch99/``, ``solutions/ch99/``, ``exercises/ch99/``, ``hidden/ch99/``
and ``fixtures/mutants/ch99.toml``. The copy then grades it, lists it in ``dtlab progress``, runs
its mutants and its coverage, and releases it, as for any other chapter.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.impl import KIT_ROOT

TEMPLATE = KIT_ROOT / "fixtures" / "new_chapter"
#: the only places a new chapter may touch
ALLOWED = (
    "graders/chapters/ch99/",
    "solutions/ch99/",
    "exercises/ch99/",
    "hidden/ch99/",
    "fixtures/mutants/ch99.toml",
)
_LEFT_OUT = shutil.ignore_patterns(
    ".venv", ".git", ".cache", ".dtlab", "__pycache__", "submissions", "new_chapter"
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    """A copy of the kit with ch99 laid over it."""
    copy = tmp_path_factory.mktemp("kit") / "dtlab"
    shutil.copytree(KIT_ROOT, copy, ignore=_LEFT_OUT)
    for path in sorted(TEMPLATE.rglob("*")):
        relative = path.relative_to(TEMPLATE).as_posix()
        if path.is_dir() or relative == "README.md":
            continue
        assert relative.startswith(ALLOWED), f"the new chapter touches {relative}"
        target = copy / relative
        assert not target.exists(), f"{relative} is a file of the kit already"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    wrote = _run(copy, "-m", "graders", "stubs").stdout.split()
    assert wrote[1::2] == ["exercises/ch99/total.py"], wrote  # the stub, generated from the solution
    return copy


def _run(kit: Path, *argv: str, ok=(0,)) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("DTLAB_IMPL", None)
    done = subprocess.run(
        [sys.executable, *argv], cwd=kit, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode in ok, (
        f"{argv}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


def test_the_new_chapter_is_graded(kit, tmp_path):
    report = tmp_path / "report.json"
    _run(
        kit,
        "-m",
        "pytest",
        "exercises/ch99",
        "hidden/ch99",
        "--impl",
        "solutions",
        f"--dtlab-report={report}",
    )
    book = json.loads(report.read_text())
    assert (book["score"], book["max_score"]) == (1, 1)
    assert book["hidden_run"] == ["ch99.ring_total::result"]
    stubs = _run(kit, "-m", "pytest", "exercises/ch99", "-q", ok=(1,)).stdout
    assert "ch99.ring_total" in stubs and "not started" in stubs


def test_dtlab_progress_lists_it(kit, tmp_path):
    out = _run(
        kit, "-m", "graders", "progress", "ch99", "--impl", "solutions", "--state", str(tmp_path / "p.json")
    )
    row = next(line for line in out.stdout.splitlines() if line.lstrip().startswith("ch99"))
    assert "1/1" in row and "A throwaway chapter" in row


def test_its_mutants_and_coverage_are_tested(kit):
    out = _run(
        kit,
        *("-m", "pytest", "tests/test_mutants.py", "tests/test_coverage.py", "-k", "ch99"),
        *("--impl", "solutions", "--hypothesis-profile", "ci", "--dtlab-deadline", "5", "-q", "-rA"),
    ).stdout
    passed = [line for line in out.splitlines() if line.startswith("PASSED") and "ch99" in line]
    assert any("test_coverage.py" in line for line in passed), out[-2000:]
    mutant_tests = {line.split("::")[1].split("[")[0] for line in passed if "test_mutants.py" in line}
    assert {"test_every_exercise_has_three_mutants", "test_mutant_is_caught"} <= mutant_tests, out[-2000:]


def test_it_is_released(kit, tmp_path):
    out = tmp_path / "release"
    _run(kit, "-m", "graders", "release", str(out))
    assert (out / "exercises/ch99/total.py").is_file() and (out / "exercises/ch99/test_total.py").is_file()
    assert "raise NotImplementedError" in (out / "exercises/ch99/total.py").read_text()
    assert (out / "graders/chapters/ch99/chapter.py").is_file()
    assert not (out / "hidden").exists() and not (out / "solutions").exists()
    assert not (out / "fixtures/mutants/ch99.toml").exists()
