"""NCCL worlds on real GPUs (issue 20): a rank's device, the ``cpu:gloo,cuda:nccl`` group, TF32
off, and a rank stuck on its GPU reported by the kit's deadline and status board (not by NCCL's
or CUDA's timeouts), then a fresh world. Each test needs GPUs and is skipped, saying how many,
where they are missing; ``bench/gpu_check.sh`` runs this file on a GPU machine."""

import time

import pytest

from graders.errors import GradingFailure, TaskHang
from graders.impl import KIT_ROOT, Impl
from graders.world.backend import gpu_count
from graders.world.pool import WorldPool
from tests.world import probe_tasks as probe

DEADLINE = 5.0
PROBES = Impl.resolve(KIT_ROOT / "fixtures" / "probes")
GPUS = gpu_count()


def needs_gpus(count: int):
    return pytest.mark.skipif(GPUS < count, reason=f"needs ≥ {count} GPU(s) ({GPUS} present)")


@pytest.fixture(scope="module")
def pool():
    pool = WorldPool(deadline=DEADLINE, backend="nccl")
    yield pool
    pool.close()


def run(pool, fn: str, world_size: int):
    return pool.run(probe.call_with_collectives, PROBES, probe.ProbeCase(world_size, fn))


@needs_gpus(1)
@pytest.mark.parametrize("world_size", [1, 2, 4, 8])
def test_each_rank_computes_on_its_own_gpu_and_reduces_through_nccl(pool, world_size):
    if world_size > GPUS:
        pytest.skip(f"needs ≥ {world_size} GPUs ({GPUS} present)")
    result = run(pool, "nccl_all_reduce", world_size)
    total = float(sum(range(1, world_size + 1)))
    for rank, value in enumerate(result.values):
        assert value["device"] == f"cuda:{rank}" and value["current"] == rank
        assert "nccl" in value["backend"]
        assert value["tf32"] is False
        assert value["sum"].tolist() == [total] * 4
    assert [event.op for event in result.traces[0]] == ["all_reduce"]


@needs_gpus(1)
def test_a_rank_stuck_on_its_gpu_is_a_hang_reported_by_the_kit(pool):
    start = time.monotonic()
    with pytest.raises(TaskHang) as info:
        run(pool, "gpu_spins", 1)
    assert time.monotonic() - start < DEADLINE + 30
    assert "rank 0" in info.value.report and "probe.py" in info.value.report
    assert run(pool, "nccl_all_reduce", 1).values[0]["sum"].tolist() == [1.0] * 4  # a fresh world


@needs_gpus(2)
def test_a_rank_that_skips_an_nccl_collective_is_a_hang_naming_the_others(pool):
    with pytest.raises(TaskHang) as info:
        run(pool, "nccl_rank1_skips_all_reduce", 2)
    assert "rank 0" in info.value.report and "probe.py" in info.value.report
    assert run(pool, "nccl_all_reduce", 2).values[1]["sum"].tolist() == [3.0] * 4


@needs_gpus(1)
def test_the_guard_refuses_a_banned_collective_on_a_gpu_tensor(pool):
    case = probe.ProbeCase(1, "nccl_banned_all_reduce")
    with pytest.raises(GradingFailure, match="all_reduce.*banned"):
        pool.run(probe.call, PROBES, case)  # chapter 2's ban on the built-in collectives


@needs_gpus(1)
def test_a_launched_program_on_as_many_gpus_as_ranks_can_use_them(pool):
    seen = pool.run(probe.call_launched, PROBES, probe.ProbeCase(1, "cuda_environment")).values[0]
    assert seen["cuda"] is True and seen["CUDA_VISIBLE_DEVICES"] != ""
    computed = pool.run(probe.call_launched, PROBES, probe.ProbeCase(1, "uses_gpu"))
    assert computed.values == [4.0]  # in a rank torchrun's launcher forked: CUDA was not poisoned
