"""Chapter 9 graders: the zigzag layout (``context_parallel.py``).

Your functions run in one worker for every rank of a context-parallel group of 1-4: each shard
must be chunks r and 2P-1-r of the sequence axis (any axis, negative included), the whole must
come back from the shards, and every rank must hold the same number of unmasked causal
(query, key) pairs.
"""

from hypothesis import given

from graders.chapters.ch9 import tasks
from graders.chapters.ch9.ring import checks as ring_checks
from graders.chapters.ch9.ring import zigzag_cases
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch9.zigzag_shard", part="round_trip")
@given(case=zigzag_cases.zigzag_cases())
@smallest_first(*zigzag_cases.ZIGZAG_EDGES)
def test_zigzag_shard_and_unshard(harness, impl, case):
    ring_checks.assert_zigzag_round_trip(harness.run(tasks.zigzag_shard, impl, case), case)


@exercise("ch9.zigzag_shard", part="balance")
@given(case=zigzag_cases.zigzag_cases())
@smallest_first(*zigzag_cases.ZIGZAG_EDGES)
def test_zigzag_shards_hold_equal_causal_work(harness, impl, case):
    ring_checks.assert_zigzag_balance(harness.run(tasks.zigzag_shard, impl, case), case)
