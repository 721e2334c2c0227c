"""Chapter 4 graders: DistributedDataParallel with buckets and overlap (``ddp.py``).

Every property trains the chapter's tiny model for 3 steps with your ``DDP`` on real gloo
ranks (replicas other than group rank 0 start different: your constructor must broadcast),
and compares every rank's parameters after every step with single-device training.
"""

from hypothesis import example, given

from graders.chapters.ch4 import cases, checks, tasks
from graders.plugin import exercise

EDGE = cases.DDP_EDGES


@exercise("ch4.ddp", part="result")
@given(case=cases.train_cases())
@example(case=EDGE[2])
@example(case=EDGE[1])
@example(case=EDGE[0])
def test_ddp(harness, impl, case):
    checks.assert_ddp_trains(harness.run(tasks.ddp, impl, case), case)


@exercise("ch4.ddp", part="buckets")
@given(case=cases.train_cases(min_world=2, max_world=3, bucket_caps=(0, 1)))
@example(case=EDGE[4])
@example(case=EDGE[3])
def test_ddp_buckets(harness, impl, case):
    checks.assert_buckets(harness.run(tasks.ddp, impl, case), case)


@exercise("ch4.ddp", part="overlap")
@given(case=cases.train_cases(min_world=2, max_world=3, bucket_caps=(0.25, 1), every_param_used=True))
@example(case=EDGE[5])
def test_ddp_overlaps_backward(harness, impl, case):
    checks.assert_overlaps_backward(harness.run(tasks.ddp, impl, case), case)


@exercise("ch4.ddp", part="no_sync")
@given(
    case=cases.train_cases(
        min_world=2, max_world=3, micro_batches=(2, 3), bucket_caps=(0.25, 1), every_param_used=True
    )
)
@example(case=EDGE[6])
def test_ddp_no_sync(harness, impl, case):
    checks.assert_no_sync(harness.run(tasks.ddp, impl, case), case)


@exercise("ch4.ddp", part="torch")
@given(case=cases.train_cases(max_world=3))
@example(case=EDGE[1])
def test_ddp_agrees_with_torch_ddp(harness, impl, case):
    checks.assert_agrees_with_torch_ddp(harness.run(tasks.ddp_and_torch_ddp, impl, case), case)
