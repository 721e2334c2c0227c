"""A chapter graded inside a world torchrun launched (``torchrun -m graders.run``, ``dtlab check
--launcher torchrun``): four processes on gloo, on this machine, as a cluster would run it."""

import os
import subprocess
import sys

import pytest

from graders.impl import KIT_ROOT
from graders.world.job.rank_host import without_torchrun

pytestmark = pytest.mark.slow

TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "4", "--rdzv-backend", "c10d"]
TORCHRUN += ["--rdzv-endpoint", "127.0.0.1:0", "--local-addr", "127.0.0.1", "-m", "graders.run"]


def _run(argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    env = without_torchrun(dict(os.environ))
    return subprocess.run(argv, cwd=KIT_ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_worker_worlds_are_the_ranks_torchrun_launched():
    """Worlds of 3 and 4 of the job's ranks; a hang reported from their boards and stacks, a rank
    that exits named, each followed by a fresh world; drawn worlds of 5 or 6 set aside, and a
    test drawing nothing else skipped (``tests/world/torchrun_world_checks.py``)."""
    done = _run([*TORCHRUN, "tests/world/torchrun_world_checks.py", "-p", "no:cacheprovider", "-rs"])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "5 passed, 1 skipped" in done.stdout
    assert "test_a_test_none_of_whose_worlds_fit_is_skipped" not in done.stdout  # skipped, not failed
    assert "processes (torchrun launched 4) (example: ProbeCase(world_size=" in done.stdout
    assert "were set aside; the others were graded" in done.stdout


def test_dtlab_check_grades_a_chapter_in_a_torchrun_world():
    argv = [sys.executable, "-m", "graders", "check", "ch2", "ring_all_reduce", "--impl", "solutions"]
    done = _run([*argv, "--launcher", "torchrun", "--nproc-per-node", "4", "--state", os.devnull])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "ch2.ring_all_reduce" in done.stdout and "3/3" in done.stdout


def test_a_driver_that_fails_ends_every_rank():
    """pytest refusing an option ends the job with its exit status, and no rank is left waiting."""
    done = _run([*TORCHRUN, "ch2", "--no-such-option"], timeout=180)
    assert done.returncode != 0
    assert "unrecognized arguments: --no-such-option" in done.stderr


def test_graders_run_outside_torchrun_says_how_to_start_it():
    env = without_torchrun(dict(os.environ))
    done = subprocess.run(
        [sys.executable, "-m", "graders.run", "ch2"], cwd=KIT_ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0 and "start it with torchrun" in done.stderr
