"""Chapter 9 graders: the cost model (``lc_cost.py``).

Your functions are called with sizes from one rank to a thousand, and compared with the formulas
of the README; about one call in six cannot be split and must raise ``ValueError``. The
communication functions must also give, for small worlds, exactly the bytes per rank measured
on the wire when the kit's own Ring Attention and Ulysses ran on real gloo worlds.
"""

from hypothesis import given

from graders.chapters.ch9 import tasks
from graders.chapters.ch9.lc_cost import cases as cost_cases
from graders.chapters.ch9.lc_cost import checks as cost_checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch9.score_bytes", part="formula")
@given(case=cost_cases.score_cases())
@smallest_first(*cost_cases.SCORE_EDGES)
def test_score_bytes(harness, impl, case):
    cost_checks.assert_cost(harness.run(tasks.score_bytes, impl, case), case)


@exercise("ch9.ring_comm_bytes", part="formula")
@given(case=cost_cases.comm_cases("ring"))
@smallest_first(*cost_cases.RING_EDGES)
def test_ring_comm_bytes(harness, impl, case):
    cost_checks.assert_cost(harness.run(tasks.ring_comm_bytes, impl, case), case)


@exercise("ch9.ring_comm_bytes", part="measured")
def test_ring_comm_bytes_is_what_the_ring_sends(harness, impl):
    case = cost_cases.measured_case("ring")
    cost_checks.assert_measured(harness.run(tasks.ring_comm_bytes, impl, case), case)


@exercise("ch9.ulysses_comm_bytes", part="formula")
@given(case=cost_cases.comm_cases("ulysses"))
@smallest_first(*cost_cases.ULYSSES_EDGES)
def test_ulysses_comm_bytes(harness, impl, case):
    cost_checks.assert_cost(harness.run(tasks.ulysses_comm_bytes, impl, case), case)


@exercise("ch9.ulysses_comm_bytes", part="measured")
def test_ulysses_comm_bytes_is_what_ulysses_sends(harness, impl):
    case = cost_cases.measured_case("ulysses")
    cost_checks.assert_measured(harness.run(tasks.ulysses_comm_bytes, impl, case), case)
