"""Chapter 10 graders: expert parallelism (``expert_parallel.py``).

Your module runs on 1-4 real gloo ranks, each with tokens of its own, and every rank's output
and gradients are compared with the single-device layer on that rank's tokens (each expert's
gradient summed over the ranks). The trace must show the split sizes, then the two all-to-alls
of exactly the routed rows, and their reverse in backward; and a rank must never use an expert
it does not hold (those are NaN on it).
"""

from hypothesis import given

from graders.chapters.ch10 import tasks
from graders.chapters.ch10.expert_parallel import cases, checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise

EDGES = cases.EXPERT_PARALLEL_EDGES


@exercise("ch10.expert_parallel_moe", part="result")
@given(case=cases.expert_parallel_cases())
@smallest_first(*EDGES)
def test_expert_parallel_moe(harness, impl, case):
    checks.assert_expert_parallel(harness.run(tasks.expert_parallel_moe, impl, case), case)


@exercise("ch10.expert_parallel_moe", part="traffic")
@given(case=cases.expert_parallel_cases(min_members=2))
@smallest_first(*EDGES[1:])
def test_expert_parallel_moe_traffic(harness, impl, case):
    run = harness.run(tasks.expert_parallel_moe_poisoned, impl, case)
    checks.assert_expert_parallel_traffic(run, case)


@exercise("ch10.expert_parallel_moe", part="local_experts")
@given(case=cases.expert_parallel_cases(min_members=2))
@smallest_first(*EDGES[1:])
def test_expert_parallel_moe_uses_local_experts_only(harness, impl, case):
    run = harness.run(tasks.expert_parallel_moe_poisoned, impl, case)
    want = checks.assert_expert_parallel(run, case, poisoned=True)
    checks.assert_holds_its_experts_only(run, case)
    checks.assert_within_the_routed_bytes(run, case, want)
