"""The first DDP script under the real ``torchrun`` command, and under the grader's launch.

The grader runs ``first_ddp.py`` through torch's own launcher with forked processes
(:mod:`graders.world.launched.ranks`). This test runs the reference script with the ``torchrun``
command itself (``python -m torch.distributed.run``, new interpreters) and checks that both
train the model one process trains on the global batches DistributedSampler makes: the grader's
launch behaves as torchrun does.

torch 2.13's gloo can abort a process at interpreter exit, after ``destroy_process_group``: a
gradient all-reduce that DDP started inside ``backward`` keeps a Python object (the autograd
engine's ``contextvars`` copy) in the work's thread-local state, and when gloo's worker thread
frees that work while Python is finalising, it cannot take the GIL and ``std::terminate`` runs
("terminate called without an active exception", SIGABRT; ~1 run in 4 here on 2 busy cores,
never before the script's last line). The reference script waits at a barrier after rank 0's
save, so the trained model is on disk before any process can exit; the test then requires a
clean exit or that abort alone.
"""

import io
import re
import subprocess
import sys

import pytest
import torch

from graders.chapters.ch1 import reference, tasks
from graders.chapters.ch1.first_ddp import cases as ddp_cases
from graders.impl import KIT_ROOT, Impl
from graders.training.history import TRAINING_TOLERANCES

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

CASE = ddp_cases.build_ddp_case(10, 3, 4, 2, 3, 0.05, 0.9, seed=7)


def _expected() -> dict:
    return reference.trained(CASE, reference.global_batches(CASE))[0]


def _close(got: dict, expected: dict) -> None:
    rtol, atol = TRAINING_TOLERANCES[torch.float32]
    assert set(got) == set(expected)
    for name, tensor in expected.items():
        torch.testing.assert_close(got[name], tensor, rtol=rtol, atol=atol)


_EXIT_ABORT = "terminate called without an active exception"


def _only_the_exit_abort(stderr: str) -> bool:
    """Whether the job failed only by torch's abort at a process's exit (see the module's text):
    torchrun's report lists SIGABRT (-6) and the SIGTERM (-15) it sent the others, no exit status
    of a Python error."""
    codes = set(re.findall(r"exitcode\s*:\s*(-?\d+)", stderr))
    return _EXIT_ABORT in stderr and "-6" in codes and codes <= {"-6", "-15"}


def test_the_torchrun_command_trains_the_reference_model(tmp_path):
    for name, value in CASE.launch_files().items():
        torch.save(value, tmp_path / name)
    script = KIT_ROOT / "solutions" / "ch1" / "first_ddp.py"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    run = subprocess.run(
        [*command, str(script), *CASE.argv], cwd=tmp_path, capture_output=True, text=True, timeout=180
    )
    assert run.returncode == 0 or _only_the_exit_abort(run.stderr), run.stderr[-3000:]
    assert run.stdout.count("epoch") == CASE.epochs  # rank 0 alone logs
    _close(torch.load(tmp_path / ddp_cases.OUT, weights_only=True), _expected())


def test_the_graders_launch_feeds_the_same_batches_and_trains_the_same_model(harness):
    run = harness.run(tasks.first_ddp, Impl.resolve("solutions"), CASE)
    index = {CASE.x[i].numpy().tobytes(): i for i in range(CASE.examples)}
    fed = [
        [[index[row.numpy().tobytes()] for row in rows] for *_, rows in run[r]["forwards"]] for r in range(2)
    ]
    assert [list(step) for step in zip(*fed, strict=True)] == reference.global_batches(CASE)
    _close(torch.load(io.BytesIO(run.files[ddp_cases.OUT]), weights_only=True), _expected())
