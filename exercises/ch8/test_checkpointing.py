"""Chapter 8 graders: activation checkpointing (``checkpointing.py``).

``checkpoint(block, x)`` runs on the kit's MLP block with dropout, from the same generator state
as a plain run of the block: the output and every gradient must be the plain run's (the same
dropout masks), autograd must save at most the input's bytes, backward must cost exactly one
more forward (torch's FLOP counter), and the CPU generator must end where the plain run leaves
it.
"""

from hypothesis import given

from graders.chapters.ch8 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise

EDGES = cases.CHECKPOINT_EDGES


@exercise("ch8.checkpoint", part="result")
@given(case=cases.checkpoint_cases())
@smallest_first(*EDGES)
def test_checkpoint_equals_the_plain_block(harness, impl, case):
    checks.assert_checkpoint_values(harness.run(tasks.checkpoint, impl, case), case)


@exercise("ch8.checkpoint", part="memory")
@given(case=cases.checkpoint_cases())
@smallest_first(*EDGES)
def test_checkpoint_saves_only_its_inputs(harness, impl, case):
    checks.assert_checkpoint_memory(harness.run(tasks.checkpoint, impl, case), case)


@exercise("ch8.checkpoint", part="recompute")
@given(case=cases.checkpoint_cases())
@smallest_first(*EDGES)
def test_checkpoint_recomputes_once(harness, impl, case):
    checks.assert_recompute(harness.run(tasks.checkpoint, impl, case), case)


@exercise("ch8.checkpoint", part="rng")
@given(case=cases.checkpoint_cases(dropouts=(0.25, 0.5)))
@smallest_first(*EDGES[1:])
def test_checkpoint_leaves_the_generator_where_it_was(harness, impl, case):
    checks.assert_generator_restored(harness.run(tasks.checkpoint, impl, case), case)
