"""Run by ``tests/world/test_torchrun_mode.py`` inside ``torchrun --nproc-per-node 4 -m graders.run``:
the worker worlds are the job's ranks, and hangs, crashes and restarts are reported as in a world
forked on one machine. (Not collected by the kit's own run: the name does not start with test_.)"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.errors import RankCrash, TaskHang
from graders.impl import KIT_ROOT, Impl
from graders.world.job.cluster import RemoteWorld
from tests.world import probe_tasks as probe

PROBES = Impl.resolve(KIT_ROOT / "fixtures" / "probes")


def run(harness, fn, world_size=3, deadline=None):
    return harness.run(probe.call, PROBES, probe.ProbeCase(world_size, fn), deadline=deadline)


def test_the_worlds_are_made_of_the_jobs_ranks(harness):
    assert harness.pool.cluster is not None and harness.pool.cluster.world_size == 4
    result = run(harness, "shift")
    assert [v.tolist() for v in result.values] == [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    assert [e.op for e in result.traces[0]] == ["isend", "recv"]
    assert isinstance(harness.pool.worlds[3], RemoteWorld)
    assert [v.tolist() for v in run(harness, "shift", world_size=4).values][0] == [3.0, 3.0]


def test_a_hang_is_reported_from_every_ranks_board_and_stack(harness):
    with pytest.raises(TaskHang) as info:
        run(harness, "everyone_sends_first", deadline=3.0)
    report = info.value.report
    for rank, peer in ((0, 1), (1, 2), (2, 0)):
        assert f"rank {rank}: blocked in send · to rank {peer}" in report
    assert "probe.py:" in report and "blocking send" in report
    assert run(harness, "shift").values[1].tolist() == [0.0, 0.0]  # a fresh world


def test_a_rank_that_exits_is_named(harness):
    with pytest.raises(RankCrash) as info:
        run(harness, "rank1_exits")
    assert "rank 1: exited with code 3" in info.value.report
    assert run(harness, "shift").values[2].tolist() == [1.0, 1.0]


def test_a_world_larger_than_the_job_is_skipped(harness):
    with pytest.raises(pytest.skip.Exception, match=r"needs ≥ 5 processes \(torchrun launched 4\)"):
        run(harness, "shift", world_size=5)


def test_drawn_worlds_larger_than_the_job_are_set_aside_and_others_drawn(harness):
    sizes = []

    @settings(max_examples=8, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.integers(3, 6))
    def draws(world_size):
        sizes.append(len(run(harness, "shift", world_size=world_size).values))

    before = harness.set_aside_in_run
    draws()
    assert set(sizes) == {3, 4}  # every value drawn once: 5 and 6 were set aside
    assert harness.set_aside_in_run > before


@settings(max_examples=5, derandomize=True, database=None)
@given(world_size=st.integers(5, 6))
def test_a_test_none_of_whose_worlds_fit_is_skipped(harness, world_size):
    run(harness, "shift", world_size=world_size)
