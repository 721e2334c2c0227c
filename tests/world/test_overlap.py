"""Overlap is an order: a bucket is launched before the next gradient starts to accumulate."""

from graders.comm.overlap import describe_late, late_bucket
from graders.comm.trace import Event

BUCKETS = [frozenset({"c", "d"}), frozenset({"a", "b"})]


def _events(*ops):
    return [Event(op, 0, -1, (0, 1), t, "") for t, op in enumerate(ops)]


def test_each_bucket_launched_from_its_last_gradient_is_in_time():
    ops = ("ready:d", "ready:c", "all_reduce", "ready:b", "ready:a", "all_reduce")
    assert late_bucket(_events(*ops), BUCKETS, ("all_reduce",)) is None


def test_launches_queued_for_the_end_of_backward_are_late():
    ops = ("ready:d", "ready:c", "ready:b", "ready:a", "all_reduce", "all_reduce")
    late = late_bucket(_events(*ops), BUCKETS, ("all_reduce",))
    assert (late.bucket, late.launched, late.before) == (0, 0, "b")
    assert "when the gradient of b began to accumulate" in describe_late(late, ["c", "d"], "all-reduce")


def test_the_last_bucket_must_go_before_backward_returns():
    late = late_bucket(
        _events("ready:d", "ready:c", "all_reduce", "ready:b", "ready:a"), BUCKETS, ("all_reduce",)
    )
    assert (late.bucket, late.before) == (1, "")


def test_a_bucket_that_never_completes_is_never_late_and_a_tensor_hook_may_launch_early():
    buckets = [frozenset({"c", "d"}), frozenset()]  # the second holds a parameter without gradient
    ops = ("ready:d", "all_reduce", "ready:c", "ready:b")  # launched from c's tensor hook
    assert late_bucket(_events(*ops), buckets, ("all_reduce",)) is None
