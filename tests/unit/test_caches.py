"""pytest's cache (``--lf``) works, in one place; hypothesis writes nothing into pytest's cwd."""

import os
import subprocess
import sys
import tomllib

import pytest

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def _pytest(*args, cwd, kit_root):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_", "HYPOTHESIS_"))}
    env["PYTHONPATH"] = str(kit_root)
    argv = [sys.executable, "-m", "pytest", "-q", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


def test_the_cache_lives_under_the_kit_and_is_ignored(kit_root):
    options = tomllib.loads((kit_root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "cacheprovider" not in options["addopts"]
    assert options["cache_dir"] == ".cache/pytest"
    assert ".cache/" in (kit_root / ".gitignore").read_text().split()


def test_lf_reruns_only_what_failed(kit_root, tmp_path):
    cache = ["-o", f"cache_dir={tmp_path / 'cache'}"]  # the kit's own configuration, a private cache
    chapter = kit_root / "exercises/ch2"
    first = _pytest("test_collectives.py", "-k", "ring_shift", *cache, cwd=chapter, kit_root=kit_root)
    assert "1 failed" in first.stdout, first.stdout + first.stderr
    again = _pytest("test_collectives.py", "--lf", *cache, cwd=chapter, kit_root=kit_root)
    assert "1 failed" in again.stdout and "deselected" in again.stdout, again.stdout + again.stderr
    assert not (kit_root / "exercises/ch2/.pytest_cache").exists()
    assert not (kit_root / "exercises/ch2/.hypothesis").exists()


GRADER = """
from pathlib import Path
from hypothesis.configuration import storage_directory
import graders  # a grader: the plugin activates

def test_storage():
    assert storage_directory().path == Path(__file__).parent / ".cache" / "hypothesis"
"""


def test_hypothesis_stores_under_the_rootdir_not_the_cwd(kit_root, tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_grader.py").write_text(GRADER)
    (tmp_path / "elsewhere").mkdir()
    done = _pytest("..", "--co", "-p", "no:cacheprovider", cwd=tmp_path / "elsewhere", kit_root=kit_root)
    assert done.returncode == 0, done.stdout + done.stderr
    done = _pytest("..", "-p", "no:cacheprovider", cwd=tmp_path / "elsewhere", kit_root=kit_root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "elsewhere" / ".hypothesis").exists()
