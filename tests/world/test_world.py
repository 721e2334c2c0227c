"""The persistent worker world: results, deadlines, crashes, isolation between tasks."""

import errno
import io
import re
import time

import pytest
import torch

from graders.errors import GradingFailure, RankCrash, RankErrorWithStuckPeers, StudentError, TaskHang
from graders.impl import KIT_ROOT, Impl
from graders.world.pool import WorldPool
from graders.world.worker import TailBuffer
from tests.world import probe_tasks as probe

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

DEADLINE = 2.0
PROBES = Impl.resolve(KIT_ROOT / "fixtures" / "probes")


@pytest.fixture(scope="module")
def pool():
    pool = WorldPool(deadline=DEADLINE)
    yield pool
    pool.close()


def run(pool, fn, world_size=3):
    return pool.run(probe.call, PROBES, probe.ProbeCase(world_size, fn))


def test_each_rank_returns_its_own_result(pool):
    result = run(pool, "shift")
    assert [v.tolist() for v in result.values] == [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    assert [e.op for e in result.traces[0]] == ["isend", "recv"]
    assert result.traces[0][0].peer == 1 and result.traces[0][1].peer == 2


def test_a_kept_outcome_is_given_again_only_for_the_same_case(pool):
    """``reuse=True`` keeps an outcome per case; two cases whose reprs agree (a field left out of
    the repr) are still two cases."""
    first = pool.run(probe.call_reused, PROBES, probe.ProbeCase(2, "shift", tag=1))
    again = pool.run(probe.call_reused, PROBES, probe.ProbeCase(2, "shift", tag=1))
    other = pool.run(probe.call_reused, PROBES, probe.ProbeCase(2, "shift", tag=2))
    assert again is first
    assert [tag for _, tag in other.values] == [2, 2]


def test_deadlock_is_reported_within_the_deadline_and_the_next_task_runs(pool):
    start = time.monotonic()
    with pytest.raises(TaskHang) as info:
        run(pool, "everyone_sends_first")
    assert time.monotonic() - start < DEADLINE + 5
    report = info.value.report
    for rank, peer in ((0, 1), (1, 2), (2, 0)):
        assert f"rank {rank}: blocked in send · to rank {peer}" in report
    assert "probe.py:" in report and "blocking send" in report
    assert run(pool, "shift").values[1].tolist() == [0.0, 0.0]


def test_a_rank_that_exits_is_named(pool):
    with pytest.raises(RankCrash) as info:
        run(pool, "rank1_exits")
    assert "rank 1: exited with code 3" in info.value.report
    run(pool, "shift")


def test_gloo_abort_on_mismatched_sizes_is_a_crash_report(pool):
    with pytest.raises(RankCrash) as info:
        run(pool, "mismatched_sizes")
    assert re.search(r"killed by SIG(ABRT|SEGV)", info.value.report)  # the abort may race gloo's thread
    assert "different sizes" in str(info.value.hint)
    run(pool, "shift")


def test_segfault_is_a_crash_report(pool):
    with pytest.raises(RankCrash) as info:
        run(pool, "segfault")
    assert "rank 1: killed by SIGSEGV" in info.value.report
    run(pool, "shift")


def test_an_exception_that_leaves_peers_waiting(pool):
    with pytest.raises(RankErrorWithStuckPeers) as info:
        run(pool, "rank1_raises")
    report = info.value.report
    assert "rank 1: raised ValueError: rank 1 gives up" in report
    assert "rank 0: blocked in recv · from rank 1" in report
    run(pool, "shift")


def test_an_exception_on_every_rank_keeps_the_world(pool):
    run(pool, "shift")
    restarts = pool.restarts
    with pytest.raises(StudentError, match="KeyError"):
        run(pool, "everyone_raises")
    assert pool.restarts == restarts


def test_a_banned_call_fails_even_when_the_error_is_caught(pool):
    with pytest.raises(GradingFailure, match="all_reduce.*banned"):
        run(pool, "catches_banned_call")


def test_state_does_not_leak_between_tasks(pool):
    dirty = run(pool, "leaves_state_behind", world_size=2)
    assert any("torch.allclose" in name for name in dirty.tampered[0])
    assert any("TaskContext" in name or "student_code" in name for name in dirty.tampered[0])
    seen = run(pool, "observes_state", world_size=2).values
    torch.manual_seed(0)
    fresh = torch.rand(1)
    for value in seen:
        assert value["default_dtype"] == "torch.float32"
        assert value["allclose_is_torch"]
        assert value["env_leak"] == ""
        assert torch.equal(value["first_random"], fresh)


def test_a_door_graded_code_unbinds_is_bound_again_and_reported(pool):
    """The process groups' own methods are shadowed once per world, not at every task: a task
    that puts one back is reported as tampering, and the next task still finds the door shut."""
    unbound = run(pool, "unbinds_a_process_group_door", world_size=2)
    assert all(
        any(name.endswith("ProcessGroup.allreduce") for name in names) for names in unbound.tampered.values()
    )
    assert sorted(unbound.tampered) == [0, 1]
    with pytest.raises(GradingFailure, match="ProcessGroup's or a backend's own methods"):
        run(pool, "calls_a_process_group_method", world_size=2)


def test_modes_left_entered_do_not_reach_the_next_task(pool):
    run(pool, "leaves_modes_entered", world_size=2)
    assert run(pool, "observes_modes", world_size=2).values == [[0, 0], [0, 0]]


def test_messages_left_in_flight_restart_the_world(pool):
    restarts = pool.restarts
    run(pool, "unmatched_send", world_size=2)
    assert pool.restarts == restarts + 1
    assert run(pool, "shift", world_size=2).values[0].tolist() == [1.0, 1.0]


def test_an_infinite_loop_is_a_hang_with_the_student_frame(pool):
    with pytest.raises(TaskHang) as info:
        run(pool, "spins_forever", world_size=2)
    assert "not in any torch.distributed call" in info.value.report
    assert "probe.py" in info.value.report


def test_printing_is_captured_and_bounded(pool):
    result = run(pool, "floods_stdout", world_size=1)
    assert len(result.stdout[0]) < 10_000
    assert "characters cut" in result.stdout[0]


def test_a_log_that_cannot_grow_does_not_end_the_rank():
    class FullDisk(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    buffer = TailBuffer(echo=FullDisk())
    assert buffer.write("hello") == 5
    assert buffer.take() == "hello"


def test_unsendable_return_values_are_described(pool):
    assert run(pool, "returns_object", world_size=1).values == ["<object of type object>"]


def test_banned_objects_outside_torch_distributed_are_refused_then_restored(pool):
    with pytest.raises(GradingFailure, match="torch.optim.AdamW.*banned"):
        pool.run(probe.call_banning_adamw, PROBES, probe.ProbeCase(1, "uses_banned_optimizer"))
    restored = pool.run(probe.call_banning_adamw, PROBES, probe.ProbeCase(1, "noop"))
    assert restored.values[0]["restored"]


@pytest.mark.parametrize(
    ("fn", "door"),
    [
        ("imports_the_kit", r"imports the grading kit.*\(graders\)"),
        ("reads_the_grader_frame", r"\(sys._getframe\)"),
        ("reads_a_frame_through_a_traceback", r"reads a frame through a traceback"),
        ("walks_every_object", r"\(gc.get_objects\)"),
        ("hides_objects_from_the_collector", r"\(gc.freeze\)"),
        ("calls_native_code", r"calls native code \(ctypes\)"),
        ("installs_a_signal_handler", r"installs a signal handler"),
        ("reads_frames_from_code_it_compiled", r"\(sys._getframe\)"),
        ("reaches_all_reduce_behind_the_wrapper", "torch.distributed.all_reduce"),
        ("calls_collective_operators", r"calls torch's collective operators"),
    ],
)
def test_every_door_around_the_guard_is_a_banned_call(pool, fn, door):
    with pytest.raises(GradingFailure, match=f"{door}.*banned") as info:
        run(pool, fn, world_size=2)
    assert "probe.py:" in str(info.value)


def test_a_banned_class_is_refused_whatever_route_reaches_it(pool):
    with pytest.raises(GradingFailure, match="torch.optim.AdamW.*banned"):
        pool.run(probe.call_banning_adamw, PROBES, probe.ProbeCase(1, "reaches_adamw_through_subclasses"))
    restored = pool.run(probe.call_banning_adamw, PROBES, probe.ProbeCase(1, "noop"))
    assert restored.values[0]["restored"]


def test_a_graded_new_group_call_is_checked_for_the_ranks_it_asks_for():
    from graders.comm.group_agreement import requested_ranks

    assert requested_ranks(([3, 1],), {}) == [1, 3]
    assert requested_ranks((), {"ranks": [3, 1], "sort_ranks": False}) == [3, 1]
    assert requested_ranks(([0, 1],), {"use_local_synchronization": True}) is None
