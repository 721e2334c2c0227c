"""Chapter 11 graders: the planner (``planner.py``).

The cost model of the docstring on random valid plans of random requests (models of 2 to 32
layers, clusters of 1 to 64 GPUs, dense and Mixture-of-Experts): memory and step time to 10⁻⁹;
then the plan you choose for feasible requests must fit and be within 10% of the fastest plan
that does, and a request nothing fits must be refused with ``ValueError``.
"""

from hypothesis import given

from graders.chapters.ch11 import checks, tasks
from graders.chapters.ch11.planner import cases as plan_cases
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch11.memory_per_gpu", part="result")
@given(case=plan_cases.costed_cases())
@smallest_first(*plan_cases.COST_EDGES)
def test_memory_per_gpu(harness, impl, case):
    checks.assert_memory(harness.run(tasks.memory_per_gpu, impl, case), case)


@exercise("ch11.step_time", part="result")
@given(case=plan_cases.costed_cases())
@smallest_first(*plan_cases.COST_EDGES)
def test_step_time(harness, impl, case):
    checks.assert_time(harness.run(tasks.step_time, impl, case), case)


@exercise("ch11.plan", part="result")
@given(case=plan_cases.feasible_cases())
@smallest_first(*plan_cases.PLAN_EDGES)
def test_the_plan_fits_and_is_within_ten_percent_of_the_best(harness, impl, case):
    checks.assert_plan(harness.run(tasks.plan, impl, case), case)


@exercise("ch11.plan", part="infeasible")
@given(case=plan_cases.infeasible_cases())
@smallest_first(*plan_cases.INFEASIBLE_EDGES)
def test_a_model_that_cannot_fit_is_refused(harness, impl, case):
    checks.assert_infeasible(harness.run(tasks.plan, impl, case), case)
