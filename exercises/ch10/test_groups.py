"""Chapter 10 graders: expert and data parallelism together (``groups.py``).

The groups are compared with the expert-parallel-fastest layout; the gradient sync runs on
1-4 real gloo ranks with gradients already in place, and the trace must show the router's
all-reduced over every data-parallel rank and each expert's over its own group only.
"""

from hypothesis import given

from graders.chapters.ch10 import tasks
from graders.chapters.ch10.expert_parallel import cases, checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch10.expert_data_parallel_ranks", part="result")
@given(case=cases.groups_cases())
@smallest_first(*cases.GROUPS_EDGES)
def test_expert_data_parallel_ranks(harness, impl, case):
    checks.assert_groups(harness.run(tasks.expert_data_parallel_ranks, impl, case)[0], case)


@exercise("ch10.all_reduce_moe_gradients", part="result")
@given(case=cases.sync_cases())
@smallest_first(*cases.SYNC_EDGES)
def test_all_reduce_moe_gradients(harness, impl, case):
    checks.assert_synced(harness.run(tasks.all_reduce_moe_gradients, impl, case), case)


@exercise("ch10.all_reduce_moe_gradients", part="traffic")
@given(case=cases.sync_cases(min_members=2))
@smallest_first(*cases.SYNC_EDGES[1:])
def test_all_reduce_moe_gradients_traffic(harness, impl, case):
    checks.assert_sync_traffic(harness.run(tasks.all_reduce_moe_gradients, impl, case), case)
