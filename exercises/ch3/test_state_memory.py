"""Chapter 3 graders: what optimizer state costs (``state_memory.py``).

``optimizer_state_bytes`` must equal the per-element state a real optimizer keeps after one step
of parameters of random shapes and dtypes (torch's, or the kit's Lion); ``bytes_per_param`` the K
a real training step of the kit's GPT leaves: fp32 masters and optimizer state per parameter.
"""

from hypothesis import given

from graders.chapters.ch3 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch3.optimizer_state_bytes", part="measured")
@given(case=cases.state_bytes_cases())
@smallest_first(*cases.STATE_EDGES)
def test_state_bytes_match_a_real_optimizer(harness, impl, case):
    checks.assert_state_bytes(harness.run(tasks.optimizer_state_bytes, impl, case), case)


@exercise("ch3.bytes_per_param", part="measured")
@given(case=cases.k_cases())
@smallest_first(*cases.K_EDGES)
def test_k_matches_a_real_training_step(harness, impl, case):
    checks.assert_bytes_per_param(harness.run(tasks.bytes_per_param, impl, case), case)
