"""Fixtures for the kit's own tests (the graders' fixtures come from the dtlab pytest plugin)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.impl import KIT_ROOT


@pytest.fixture(scope="session")
def kit_root():
    return KIT_ROOT


@pytest.fixture(scope="session")
def grade_command():
    """``grade_command(submissions, out, *options)``: the argv of ``dtlab grade`` for chapter 2."""

    def command(submissions, out, *options: str) -> list[str]:
        chapter = ["--chapter", "ch2", "--out", str(out)]
        return [sys.executable, "-m", "graders", "grade", str(submissions), *chapter, *options]

    return command


#: what a copy of the kit leaves out: the environment, caches and the bulky samples
_LEFT_OUT = shutil.ignore_patterns(
    ".venv", ".git", ".cache", ".dtlab", "__pycache__", "submissions", "new_chapter"
)


def _copy_kit(into: Path) -> Path:
    copy = into / "dtlab"
    shutil.copytree(KIT_ROOT, copy, ignore=_LEFT_OUT)
    return copy


def _run_in(kit: Path, *argv: str, ok=(0,)) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("DTLAB_IMPL", None)
    done = subprocess.run(
        [sys.executable, *argv], cwd=kit, env=env, capture_output=True, text=True, timeout=600
    )
    said = f"{argv}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.returncode in ok, said
    return done


@pytest.fixture(scope="session")
def copy_kit():
    """``copy_kit(folder)``: a copy of the kit in ``folder``, to change and run with ``run_in``."""
    return _copy_kit


@pytest.fixture(scope="session")
def run_in():
    """``run_in(kit, *argv, ok=(0,))``: ``python argv…`` in a copy of the kit, which it imports
    its graders from; the exit status must be in ``ok``."""
    return _run_in
