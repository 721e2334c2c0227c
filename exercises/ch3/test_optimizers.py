"""Chapter 3 graders: five optimizers (``optimizers.py``).

Each optimizer steps a few parameters of random shapes, in one or two param groups, through up to
five steps in which some parameters have no gradient; the parameters after every step must be
``torch.optim``'s on the same parameters and gradients (Lion: a written-out reference), and what
the optimizer keeps alive afterwards must be the state its update needs, no more and no less.
"""

from hypothesis import given

from graders.chapters.ch3 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch3.sgd", part="result")
@given(case=cases.optimizer_cases("sgd"))
@smallest_first(*cases.EDGES["sgd"])
def test_sgd_steps_like_torch(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.sgd, impl, case), case)


@exercise("ch3.sgd", part="state")
@given(case=cases.optimizer_cases("sgd", every_param_stepped=True))
@smallest_first(*cases.EDGES["sgd"])
def test_sgd_keeps_one_buffer(harness, impl, case):
    checks.assert_optimizer_state(harness.run(tasks.sgd_state, impl, case), case)


@exercise("ch3.adam", part="result")
@given(case=cases.optimizer_cases("adam"))
@smallest_first(*cases.EDGES["adam"])
def test_adam_steps_like_torch(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adam, impl, case), case)


@exercise("ch3.adam", part="state")
@given(case=cases.optimizer_cases("adam", every_param_stepped=True))
@smallest_first(*cases.EDGES["adam"])
def test_adam_keeps_two_moments(harness, impl, case):
    checks.assert_optimizer_state(harness.run(tasks.adam_state, impl, case), case)


@exercise("ch3.adamw", part="result")
@given(case=cases.optimizer_cases("adamw"))
@smallest_first(*cases.EDGES["adamw"])
def test_adamw_steps_like_torch(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adamw, impl, case), case)


@exercise("ch3.adamw", part="state")
@given(case=cases.optimizer_cases("adamw", every_param_stepped=True))
@smallest_first(*cases.EDGES["adamw"])
def test_adamw_keeps_two_moments(harness, impl, case):
    checks.assert_optimizer_state(harness.run(tasks.adamw_state, impl, case), case)


@exercise("ch3.adagrad", part="result")
@given(case=cases.optimizer_cases("adagrad"))
@smallest_first(*cases.EDGES["adagrad"])
def test_adagrad_steps_like_torch(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adagrad, impl, case), case)


@exercise("ch3.adagrad", part="state")
@given(case=cases.optimizer_cases("adagrad", every_param_stepped=True))
@smallest_first(*cases.EDGES["adagrad"])
def test_adagrad_keeps_one_sum(harness, impl, case):
    checks.assert_optimizer_state(harness.run(tasks.adagrad_state, impl, case), case)


@exercise("ch3.lion", part="result")
@given(case=cases.optimizer_cases("lion"))
@smallest_first(*cases.EDGES["lion"])
def test_lion_steps_like_the_paper(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.lion, impl, case), case)


@exercise("ch3.lion", part="state")
@given(case=cases.optimizer_cases("lion", every_param_stepped=True))
@smallest_first(*cases.EDGES["lion"])
def test_lion_keeps_one_moment(harness, impl, case):
    checks.assert_optimizer_state(harness.run(tasks.lion_state, impl, case), case)
