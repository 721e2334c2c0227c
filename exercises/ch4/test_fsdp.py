"""Chapter 4 graders: sharded data parallelism (``fsdp.py``).

Every property trains the chapter's tiny model for 3 steps with your ``ShardedDataParallel``
on real gloo ranks, gathers the ranks' ``flat_param`` shards in the contract's layout, and
compares the parameters after every step with single-device training (where a parameter
that gets no gradient is stepped with a zero gradient, as a flat parameter does).
"""

from hypothesis import example, given

from graders.chapters.ch4 import cases, checks, memory, tasks
from graders.plugin import exercise

EDGE = cases.FSDP_EDGES


@exercise("ch4.fsdp", part="result")
@given(case=cases.train_cases())
@example(case=EDGE[2])
@example(case=EDGE[1])
@example(case=EDGE[0])
def test_fsdp(harness, impl, case):
    checks.assert_sharded_trains_like_one_device(harness.run(tasks.fsdp, impl, case), case)


@exercise("ch4.fsdp", part="memory")
@given(case=cases.train_cases(max_world=3))
@example(case=EDGE[4])
@example(case=EDGE[3])
def test_fsdp_memory(harness, impl, case):
    memory.assert_sharded_memory(harness.run(tasks.fsdp_measured, impl, case), case)


@exercise("ch4.fsdp", part="traffic")
@given(case=cases.train_cases(min_world=2, max_world=3))
@example(case=EDGE[1])
def test_fsdp_traffic(harness, impl, case):
    checks.assert_sharded_traffic(harness.run(tasks.fsdp, impl, case), case)
