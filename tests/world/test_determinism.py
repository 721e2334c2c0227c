"""One verdict everywhere: a grader draws the same examples in a local run and in ``dtlab grade``.

Two things made derandomized graders draw differently in the two, and are pinned here:

* ``dtlab grade`` deletes its copy of the graders after collection, and hypothesis then seeds a
  derandomized test from its name instead of its source: the plugin seeds every grader from
  its exercise, part and name (``profiles.pin_seed``);
* hypothesis draws some integers from constants found in the local modules imported so far,
  which differ between the two: the plugin turns that pool off (``profiles.ignore_local_constants``).
"""

import os
import subprocess
import sys

import pytest
from hypothesis import settings

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

GRADER = """
import os
from hypothesis import given, strategies as st
from graders.plugin import exercise
{extra_import}

@exercise("ch2.ring_shift", part="result")
@given(x=st.integers(0, 10**6), y=st.integers(0, 200))
def test_draws(x, y):
    with open(os.environ["DRAWN"], "a") as fh:
        fh.write(f"{{x}} {{y}}\\n")
"""
#: a local module full of integer constants of the ranges the grader draws from
CONSTANTS = "TABLE = (" + ", ".join(str(7919 * k % 200) for k in range(300)) + ", 123456, 654321)\n"
#: what ``dtlab grade``'s driver does: remove the graders once they are collected
DELETER = """
import os

def pytest_collection_finish(session):
    os.remove(os.environ["GRADER_FILE"])
"""


def _draws(tmp_path, name: str, *, extra_import: str = "", delete: bool = False) -> list[str]:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "test_grader.py").write_text(GRADER.format(extra_import=extra_import))
    (folder / "localconsts.py").write_text(CONSTANTS)
    (folder / "deleter.py").write_text(DELETER)
    drawn = folder / "drawn.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_"))}
    env.update(DRAWN=str(drawn), GRADER_FILE=str(folder / "test_grader.py"), PYTHONPATH=str(folder))
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-profile=ci"]
    args += ["-p", "deleter"] if delete else []
    done = subprocess.run(
        [*args, str(folder / "test_grader.py"), f"--rootdir={folder}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return drawn.read_text().splitlines()


def test_the_examples_depend_neither_on_the_source_file_nor_on_the_local_modules_loaded(tmp_path):
    local_run = _draws(tmp_path, "local")
    assert len(set(local_run)) > 10
    assert local_run == _draws(tmp_path, "batch", extra_import="import localconsts", delete=True)


def test_every_kit_profile_is_derandomized_without_a_database():
    from graders.plugin import profiles

    profiles.register("ci")
    for name in ("student", "grading", "ci"):
        profile = settings.get_profile(name)
        assert profile.derandomize and profile.database is None, name
