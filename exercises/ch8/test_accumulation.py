"""Chapter 8 graders: gradient accumulation (``accumulation.py``).

Your step runs on 1-4 real gloo ranks, each with microbatches of its own (of uneven sizes), on
a model wrapped in PyTorch's own ``DistributedDataParallel``; the parameters after every step
must equal one large-batch step per rank averaged over the ranks, and the trace must show
exactly one all-reduce of the whole gradient per optimizer step.
"""

from hypothesis import given

from graders.chapters.ch8 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise

EDGES = cases.ACCUMULATION_EDGES


@exercise("ch8.accumulation_step", part="result")
@given(case=cases.accumulation_cases())
@smallest_first(*EDGES)
def test_accumulation_equals_the_large_batch(harness, impl, case):
    checks.assert_accumulated(harness.run(tasks.accumulation_step, impl, case), case)


@exercise("ch8.accumulation_step", part="traffic")
@given(case=cases.accumulation_cases(min_members=2))
@smallest_first(*EDGES[1:])
def test_one_all_reduce_per_optimizer_step(harness, impl, case):
    checks.assert_one_all_reduce_per_step(harness.run(tasks.accumulation_step, impl, case), case)
