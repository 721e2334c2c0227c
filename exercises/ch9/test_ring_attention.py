"""Chapter 9 graders: Ring Attention (``ring_attention.py``).

Your function runs on 1-4 real gloo ranks and subgroups, each holding a chunk of the sequence;
every rank's output and gradients are compared with its shard of full attention on the whole
sequence, causal and not. The trace must show only messages between ring neighbours: the
key/value blocks passed P-1 times forward, and backward the same with dk/dv travelling along.
On rings of 7-8 ranks the forward may hold only a few blocks at a time (memory).
Over the zigzag layout (``layout="zigzag"``) the result must be the same attention.
"""

from hypothesis import given
from hypothesis import strategies as st

from graders.chapters.ch9 import cases, tasks
from graders.chapters.ch9.ring import checks as ring_checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch9.ring_attention", part="result")
@given(case=cases.ring_cases())
@smallest_first(*cases.RING_EDGES)
def test_ring_attention(harness, impl, case):
    ring_checks.assert_ring(harness.run(tasks.ring_attention, impl, case), case)


@exercise("ch9.ring_attention", part="backward")
@given(case=cases.ring_cases(min_members=2))
@smallest_first(*cases.RING_EDGES[1:])
def test_ring_attention_backward(harness, impl, case):
    ring_checks.assert_ring_backward(harness.run(tasks.ring_attention, impl, case), case)


@exercise("ch9.ring_attention", part="traffic")
@given(case=cases.ring_cases(min_members=2))
@smallest_first(*cases.RING_EDGES[1:])
def test_ring_attention_talks_to_neighbours_only(harness, impl, case):
    ring_checks.assert_ring_traffic(harness.run(tasks.ring_attention, impl, case), case)


@exercise("ch9.ring_attention", part="memory")
@given(case=st.sampled_from(cases.RING_MEMORY_CASES))
def test_ring_attention_holds_a_few_blocks_at_a_time(harness, impl, case):
    ring_checks.assert_ring_memory(harness.run(tasks.ring_attention_memory, impl, case), case)


@exercise("ch9.zigzag_ring_attention", part="result")
@given(case=cases.ring_cases(min_members=2, layout="zigzag"))
@smallest_first(*cases.ZIGZAG_RING_EDGES)
def test_ring_attention_over_the_zigzag_layout(harness, impl, case):
    ring_checks.assert_zigzag_ring(harness.run(tasks.zigzag_ring_attention, impl, case), case)
