"""Chapter 6 graders: the tensor-parallel blocks (``blocks.py``).

Every property builds your block from the single-device block's weights (``graders/training/gpt.py``),
runs it forward and backward on 1-4 real gloo ranks, and compares the output, the input's
gradient and every parameter's gradient (put together from the ranks' shards) with one device.
The trace must show one all-reduce each way (an all-gather plus a reduce-scatter under sequence
parallelism), and sequence parallelism must shrink what LayerNorm and dropout save for backward.
"""

from hypothesis import given

from graders.chapters.ch6.blocks import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples

#: a block builds two models and runs six collectives per example: half the profile's examples
HALF = fewer_examples(1 / 2)

MLP, MLP_SP = cases.block_edges("mlp"), cases.block_edges("mlp", sequence_parallel=True)
ATTENTION, ATTENTION_SP = (
    cases.block_edges("attention"),
    cases.block_edges("attention", sequence_parallel=True),
)


@exercise("ch6.parallel_mlp", part="result")
@given(case=cases.block_cases("mlp"))
@HALF
@smallest_first(*MLP)
def test_parallel_mlp(harness, impl, case):
    checks.assert_block(harness.run(tasks.parallel_mlp, impl, case), case)


@exercise("ch6.parallel_mlp", part="traffic")
@given(case=cases.block_cases("mlp", min_members=2))
@HALF
@smallest_first(*MLP[1:])
def test_parallel_mlp_traffic(harness, impl, case):
    checks.assert_block_traffic(harness.run(tasks.parallel_mlp, impl, case), case)


@exercise("ch6.parallel_mlp", part="sequence_parallel")
@given(case=cases.block_cases("mlp", sequence_parallel=True))
@HALF
@smallest_first(*MLP_SP)
def test_parallel_mlp_sequence_parallel(harness, impl, case):
    checks.assert_block_traffic(harness.run(tasks.parallel_mlp, impl, case), case)


@exercise("ch6.parallel_mlp", part="memory")
@given(case=cases.block_cases("mlp", sequence_parallel=True, min_members=2, dropout=0.25, measured=True))
@HALF
@smallest_first(*cases.block_edges("mlp", sequence_parallel=True, dropout=0.25))
def test_parallel_mlp_sequence_parallel_saves_less(harness, impl, case):
    values = cases.build_block(**{**cases.fields(case), "dropout": 0.0})
    checks.assert_block(harness.run(tasks.parallel_mlp, impl, values), values)
    checks.assert_sequence_parallel_memory(harness.run(tasks.block_saved_bytes, impl, case), case)


@exercise("ch6.parallel_attention", part="result")
@given(case=cases.block_cases("attention"))
@HALF
@smallest_first(*ATTENTION)
def test_parallel_attention(harness, impl, case):
    checks.assert_block(harness.run(tasks.parallel_attention, impl, case), case)


@exercise("ch6.parallel_attention", part="traffic")
@given(case=cases.block_cases("attention", min_members=2))
@HALF
@smallest_first(*ATTENTION[1:])
def test_parallel_attention_traffic(harness, impl, case):
    checks.assert_block_traffic(harness.run(tasks.parallel_attention, impl, case), case)


@exercise("ch6.parallel_attention", part="sequence_parallel")
@given(case=cases.block_cases("attention", sequence_parallel=True))
@HALF
@smallest_first(*ATTENTION_SP)
def test_parallel_attention_sequence_parallel(harness, impl, case):
    checks.assert_block_traffic(harness.run(tasks.parallel_attention, impl, case), case)
