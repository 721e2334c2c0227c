"""Chapter 9 graders: DeepSpeed-Ulysses (``ulysses.py``).

Your function runs on 1-4 real gloo ranks and subgroups, each with a chunk of the sequence; every
rank's output and gradients are compared with full attention on the whole sequence, the trace
must show exactly the two all-to-alls each way, and a head count the group does not divide must
raise a ``ValueError`` naming both numbers.
"""

from hypothesis import given

from graders.chapters.ch9 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch9.ulysses_attention", part="result")
@given(case=cases.ulysses_cases())
@smallest_first(*cases.ULYSSES_EDGES)
def test_ulysses_attention(harness, impl, case):
    checks.assert_ulysses(harness.run(tasks.ulysses_attention, impl, case), case)


@exercise("ch9.ulysses_attention", part="traffic")
@given(case=cases.ulysses_cases(min_members=2))
@smallest_first(*cases.ULYSSES_EDGES[1:])
def test_ulysses_attention_traffic(harness, impl, case):
    checks.assert_ulysses_traffic(harness.run(tasks.ulysses_attention, impl, case), case)


@exercise("ch9.ulysses_attention", part="heads")
@given(case=cases.ulysses_cases(min_members=2, divisible=False))
@smallest_first(*cases.HEADS_EDGES)
def test_ulysses_attention_rejects_indivisible_heads(harness, impl, case):
    checks.assert_heads_rejected(harness.run(tasks.ulysses_attention, impl, case), case)
