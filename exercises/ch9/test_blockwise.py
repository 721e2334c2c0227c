"""Chapter 9 graders: blockwise attention (``blockwise.py``).

Your function runs in a worker and is compared with full attention (and its log-sum-exp), causal
and not, with block sizes that leave a shorter last block; on sequences several blocks long the
live ledger's largest storage must be one block of scores, never the ``seq × seq`` matrix.
"""

from hypothesis import given

from graders.chapters.ch9 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch9.blockwise_attention", part="result")
@given(case=cases.blockwise_cases())
@smallest_first(*cases.BLOCKWISE_EDGES)
def test_blockwise_attention(harness, impl, case):
    checks.assert_blockwise(harness.run(tasks.blockwise_attention, impl, case), case)


@exercise("ch9.blockwise_attention", part="memory")
@given(case=cases.blockwise_cases(long=True))
@smallest_first(*cases.LONG_EDGES)
def test_blockwise_attention_never_makes_the_score_matrix(harness, impl, case):
    checks.assert_blockwise_memory(harness.run(tasks.blockwise_attention, impl, case), case)
