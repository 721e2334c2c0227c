"""Chapter 4 graders: DistributedDataParallel with buckets and overlap (``ddp.py``).

Every property trains the chapter's tiny model for 3 steps with your ``DDP`` on real gloo
ranks (replicas other than group rank 0 start different: your constructor must broadcast),
and compares every rank's parameters after every step with single-device training.
"""

from hypothesis import example, given

from graders.chapters.ch4 import cases, reference, tasks
from graders.checks import fail
from graders.comm.trace import ALL_REDUCES
from graders.plugin import exercise
from graders.training import OptimizerSpec, assert_history_close

ADAMW = OptimizerSpec("adamw", 0.03, 0.2)
SGD = OptimizerSpec("sgd", 0.2, 0.05, momentum=0.9)
SGD_PLAIN = OptimizerSpec("sgd", 0.05, 0.2)  # float32 trains with SGD (optimizer_specs)
EDGE = (
    cases.TrainCase(4, None, "float32", SGD_PLAIN, seed=1),
    cases.TrainCase(4, (1, 3), "float64", SGD, seed=2),  # group rank 0 is global rank 1
    cases.TrainCase(1, None, "float64", ADAMW, seed=3),
    # 8 buckets, one parameter each; the first holds only the parameter that gets no gradient
    cases.TrainCase(3, None, "float64", SGD, seed=4, bucket_cap_bytes=8, show_cap=True),
    cases.TrainCase(2, None, "float32", SGD_PLAIN, seed=5, bucket_cap_bytes=200, show_cap=True),
)
HINT = (
    "broadcast every parameter from group rank 0 at construction; after "
    "finish_gradient_synchronization() every .grad is the average over the group (None stays None)."
)


def _assert_trains_like_one_device(run, case):
    expected = reference.history(case)
    for rank in case.ranks:
        assert_history_close(run[rank]["history"], expected, who=f"rank {rank}", case=case, hint=HINT)


def _all_reduces(events):
    return [e for e in events if e.op in ALL_REDUCES]


def _synchronised_all_reduces(run, rank):
    """Per step: the all-reduces issued from the synchronised backward to the end of the step."""
    steps, current, counting = [], [], False
    for label, events in run.traces.phases(rank):
        if counting:
            current += _all_reduces(events)
        if label in ("no_sync_end", "forward_end") and not counting:
            counting, current = True, []
        elif label == "step_end":
            steps.append(current)
            counting = False
    return steps


@exercise("ch4.ddp", part="result")
@given(case=cases.train_cases())
@example(case=EDGE[0])
@example(case=EDGE[1])
@example(case=EDGE[2])
def test_ddp(harness, impl, case):
    run = harness.run(tasks.ddp, impl, case)
    _assert_trains_like_one_device(run, case)


@exercise("ch4.ddp", part="buckets")
@given(case=cases.train_cases(min_world=2, max_world=3, bucket_caps=(0, 1)))
@example(case=EDGE[3])
@example(case=EDGE[4])
def test_ddp_buckets(harness, impl, case):
    run = harness.run(tasks.ddp, impl, case)
    _assert_trains_like_one_device(run, case)
    buckets = reference.buckets(case)
    sizes = sorted(sum(b for _, b in bucket) for bucket in buckets)
    for rank in case.ranks:
        for step, issued in enumerate(_synchronised_all_reduces(run, rank), start=1):
            got = sorted(e.nbytes for e in issued)
            if got != sizes:
                fail(
                    f"rank {rank}, step {step}: {len(got)} all-reduce(s) of {got} B; with "
                    f"bucket_cap_mb={case.bucket_cap_bytes}/2**20 the {len(buckets)} bucket(s) are "
                    f"{reference.describe_buckets(buckets)}.",
                    case,
                    "walk the trainable parameters in reverse order of module.parameters(), close a "
                    "bucket once it holds >= bucket_cap_mb * 2**20 bytes, and all-reduce each bucket "
                    "once per backward as one flat buffer.",
                )


@exercise("ch4.ddp", part="overlap")
@given(case=cases.train_cases(min_world=2, max_world=3, bucket_caps=(0.25, 1), every_param_used=True))
@example(case=cases.TrainCase(2, None, "float32", SGD_PLAIN, seed=6, every_param_used=True))
def test_ddp_overlaps_backward(harness, impl, case):
    run = harness.run(tasks.ddp, impl, case)
    _assert_trains_like_one_device(run, case)
    for rank in case.ranks:
        for step, events in enumerate(run.traces.phase(rank, "backward_end"), start=1):
            if not _all_reduces(events):
                fail(
                    f"rank {rank}, step {step}: no all-reduce was issued before backward() returned, "
                    "so communication did not overlap computation.",
                    case,
                    "launch a bucket's all-reduce (async_op=True) from the post-accumulate-grad hook "
                    "of its last gradient; finish_gradient_synchronization() only waits.",
                )


@exercise("ch4.ddp", part="no_sync")
@given(
    case=cases.train_cases(
        min_world=2, max_world=3, micro_batches=(2, 3), bucket_caps=(0.25, 1), every_param_used=True
    )
)
@example(case=cases.TrainCase(3, None, "float64", SGD, seed=7, micro_batches=2, every_param_used=True))
def test_ddp_no_sync(harness, impl, case):
    run = harness.run(tasks.ddp, impl, case)
    _assert_trains_like_one_device(run, case)
    expected = len(reference.buckets(case))
    for rank in case.ranks:
        for step, events in enumerate(run.traces.phase(rank, "no_sync_end"), start=2):
            if events:
                fail(
                    f"rank {rank}, step {step}: {len(events)} call(s) ({events[0].op}, ...) inside "
                    "no_sync(); accumulation must not communicate.",
                    case,
                    "inside no_sync() the hooks only let gradients accumulate in .grad.",
                )
        for step, issued in enumerate(_synchronised_all_reduces(run, rank), start=1):
            if len(issued) != expected:
                fail(
                    f"rank {rank}, step {step}: {len(issued)} all-reduce(s) after no_sync(); the "
                    f"accumulated gradients travel in one all-reduce per bucket ({expected}).",
                    case,
                )
        # Step 1 runs without no_sync: if it overlapped, the steps after no_sync() must too.
        overlapped = [bool(_all_reduces(events)) for events in run.traces.phase(rank, "backward_end")]
        if overlapped and overlapped[0] and not all(overlapped):
            fail(
                f"rank {rank}: step 1 all-reduced during backward, but step {overlapped.index(False) + 1}, "
                "after no_sync(), waited for finish_gradient_synchronization().",
                case,
                "leaving no_sync() must restore synchronisation, and the hooks' bookkeeping (how many "
                "gradients of a bucket are ready) must not count the backward passes inside no_sync().",
            )


@exercise("ch4.ddp", part="torch")
@given(case=cases.train_cases(max_world=3))
@example(case=EDGE[1])
def test_ddp_agrees_with_torch_ddp(harness, impl, case):
    run = harness.run(tasks.ddp_and_torch_ddp, impl, case)
    for rank in case.ranks:
        assert_history_close(
            run[rank]["history"],
            run[rank]["torch"],
            who=f"rank {rank} (your DDP vs torch.nn.parallel.DistributedDataParallel on the same data)",
            case=case,
            hint=HINT,
        )
