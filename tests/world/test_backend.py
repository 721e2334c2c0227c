"""Backend choice (``--backend auto|gloo|nccl``): which worlds take NCCL, what is skipped where the
GPUs are missing, and how tensors reach a rank's device. NCCL itself needs GPUs; everything here
runs on any machine (the device a move is tested with is ``meta``)."""

import dataclasses
import os
import subprocess
import sys

import pytest
import torch

from graders.impl import KIT_ROOT, Impl
from graders.judge.checks import TOLERANCES
from graders.plugin.harness import Harness
from graders.training.history import TRAINING_TOLERANCES
from graders.training.tiny_lm import Batch
from graders.world.backend import NCCL_WITH_CPU, NeedsHardware, Placement, gpu_count, place
from graders.world.pool import WorldPool
from graders.world.task import on_device
from tests.world import probe_tasks as probe

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

PROBES = Impl.resolve(KIT_ROOT / "fixtures" / "probes")


@pytest.mark.parametrize(
    ("requested", "size", "gpus", "backend"),
    [
        ("auto", 1, 0, "gloo"),  # a CPU machine
        ("auto", 2, 2, "nccl"),  # a GPU per rank
        ("auto", 3, 2, "gloo"),  # not enough GPUs: gloo, not a failure
        ("gloo", 2, 8, "gloo"),
        ("nccl", 4, 4, "nccl"),
    ],
)
def test_a_world_takes_nccl_only_where_every_rank_has_a_gpu(requested, size, gpus, backend):
    assert place(requested, size, gpus).backend == backend


def test_nccl_without_enough_gpus_says_how_many_are_needed():
    with pytest.raises(NeedsHardware, match=r"needs ≥ 3 GPUs for NCCL \(2 present\)"):
        place("nccl", 3, 2)
    with pytest.raises(NeedsHardware, match=r"needs ≥ 1 GPU for NCCL \(0 present\)"):
        place("nccl", 1, 0)
    with pytest.raises(ValueError, match="unknown backend 'mpi'"):
        place("mpi", 1, 0)


def test_ranks_share_the_gpus_round_robin_and_keep_a_cpu_backend():
    nccl = Placement("nccl", 2)
    assert [nccl.device(rank) for rank in range(4)] == ["cuda:0", "cuda:1", "cuda:0", "cuda:1"]
    assert nccl.process_group_backend == NCCL_WITH_CPU == "cpu:gloo,cuda:nccl"
    assert Placement().device(3) == "cpu" and Placement().process_group_backend == "gloo"


def test_this_machine_counts_its_gpus_without_initialising_cuda():
    count = gpu_count()
    assert count == (torch.cuda.device_count() if torch.backends.cuda.is_built() else 0)
    assert not torch.cuda.is_initialized()


def test_a_case_needing_more_gpus_is_skipped_before_any_world_starts():
    pool = WorldPool(deadline=2.0, backend="nccl")
    pool._gpus = 1  # as on a one-GPU machine
    harness = Harness(pool)
    try:
        with pytest.raises(pytest.skip.Exception, match=r"needs ≥ 3 GPUs for NCCL \(1 present\)"):
            harness.run(probe.call, PROBES, probe.ProbeCase(3, "shift"))
        assert pool.worlds == {} and pool.fork_server.proc is None
    finally:
        pool.close()


def test_an_unknown_backend_is_refused_when_the_pool_is_made():
    with pytest.raises(ValueError, match="choose one of auto, gloo, nccl"):
        WorldPool(backend="mpi")


def test_nccl_on_a_machine_without_gpus_skips_every_grader_with_the_reason():
    if gpu_count():
        pytest.skip("this machine has a GPU")
    argv = [sys.executable, "-m", "pytest", "exercises/ch2", "--impl", "solutions", "--backend", "nccl"]
    argv += ["-k", "ring_shift or bus_bandwidth", "-rs", "-p", "no:cacheprovider"]
    done = subprocess.run(argv, cwd=KIT_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "2 skipped" in done.stdout and "needs ≥ 1 GPU for NCCL (0 present)" in done.stdout
    assert "not run" in done.stdout  # the points table: skipped parts earn nothing and fail nothing


def test_gloo_chosen_explicitly_grades_as_auto_does_on_a_cpu_machine():
    argv = [sys.executable, "-m", "pytest", "exercises/ch2", "--impl", "solutions", "-k", "ring_shift"]
    env = dict(os.environ, DTLAB_BACKEND="gloo")
    done = subprocess.run(
        argv + ["-p", "no:cacheprovider"], cwd=KIT_ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-2000:]


@dataclasses.dataclass(frozen=True)
class _Pair:
    first: torch.Tensor
    label: str


def test_inputs_reach_the_device_whole():
    meta = torch.device("meta")
    leaf = torch.ones(3, requires_grad=True)
    moved = on_device(
        {
            "x": leaf,
            "rows": [torch.zeros(2), (torch.arange(3),)],
            "batch": Batch(torch.zeros(1, 2), torch.ones(1, 2)),
        },
        meta,
    )
    assert moved["x"].device == meta and moved["x"].requires_grad and moved["x"].is_leaf
    assert moved["rows"][0].device == meta and isinstance(moved["rows"][1], tuple)
    assert moved["rows"][1][0].device == meta and moved["rows"][1][0].dtype == torch.int64
    assert isinstance(moved["batch"], Batch) and moved["batch"].targets.device == meta
    pair = on_device(_Pair(torch.zeros(1), "kept"), meta)
    assert pair.first.device == meta and pair.label == "kept"
    module = on_device(torch.nn.Linear(2, 2), meta)
    assert module.weight.device == meta
    cpu = torch.zeros(2)
    assert on_device(cpu, torch.device("cpu")) is cpu  # gloo: nothing is copied


def _table(tolerances: dict) -> list[str]:
    return [
        f"| `{str(dtype).removeprefix('torch.')}` | {r:g} | {a:g} |" for dtype, (r, a) in tolerances.items()
    ]


def test_the_gpu_page_documents_the_tolerances_the_checks_use():
    readme = (KIT_ROOT / "docs" / "gpus.md").read_text(encoding="utf-8")
    for row in _table(TOLERANCES) + _table(TRAINING_TOLERANCES):
        assert row in readme, row


def test_a_launched_program_sees_no_gpu_unless_each_rank_has_one_and_cuda_is_not_poisoned():
    """A program torchrun's launcher starts (chapter 1's first DDP script) picks CUDA when it is
    available: with fewer GPUs than ranks (or gloo chosen) the GPUs are hidden, so it trains on
    the CPU, and torch's launcher asks for CUDA through NVML, so that the ranks it forks can
    still initialise it (``tests/world/test_nccl.py`` launches one on a GPU)."""
    pool = WorldPool(deadline=10.0, backend="gloo")
    try:
        result = pool.run(probe.call_launched, PROBES, probe.ProbeCase(2, "cuda_environment"))
    finally:
        pool.close()
    nvml_check = os.environ.get("PYTORCH_NVML_BASED_CUDA_CHECK")  # the agent's own, not the ranks'
    expected = {"CUDA_VISIBLE_DEVICES": "", "PYTORCH_NVML_BASED_CUDA_CHECK": nvml_check, "cuda": False}
    assert result.values == [expected, expected]
