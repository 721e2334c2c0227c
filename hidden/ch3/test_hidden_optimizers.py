"""Hidden graders of chapter 3: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points:
* long runs (12-25 steps, float64), where a bias correction or a learning-rate decay that is off
  by a little at each step drifts away from torch's;
* a checkpoint in the middle of a run: the optimizer's ``state_dict()`` loaded into a fresh
  optimizer over copies of the parameters must step on exactly as if nothing happened. The
  contract keeps every per-parameter state in ``self.state[p]``; state kept anywhere else (an
  attribute, a list beside the optimizer) is lost in the round trip.
"""

from hypothesis import given, settings

from graders.chapters.ch3 import cases, checks, tasks
from graders.plugin import exercise

#: Large examples cost more: fewer of them than the profile's count, in every profile.
LARGE = settings(max_examples=8)


def _long(name):
    return cases.optimizer_cases(name, min_steps=12, max_steps=25, dtypes=("float64",))


def _resumed(name):
    return cases.optimizer_cases(name, min_steps=2, max_steps=6, resume=True)


@exercise("ch3.sgd", part="result")
@LARGE
@given(case=_long("sgd"))
def test_sgd_over_a_long_run(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.sgd, impl, case), case)


@exercise("ch3.adam", part="result")
@LARGE
@given(case=_long("adam"))
def test_adam_over_a_long_run(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adam, impl, case), case)


@exercise("ch3.adamw", part="result")
@LARGE
@given(case=_long("adamw"))
def test_adamw_over_a_long_run(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adamw, impl, case), case)


@exercise("ch3.adagrad", part="result")
@LARGE
@given(case=_long("adagrad"))
def test_adagrad_over_a_long_run(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adagrad, impl, case), case)


@exercise("ch3.lion", part="result")
@LARGE
@given(case=_long("lion"))
def test_lion_over_a_long_run(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.lion, impl, case), case)


@exercise("ch3.sgd", part="state")
@LARGE
@given(case=_resumed("sgd"))
def test_sgd_resumes_from_its_state_dict(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.sgd, impl, case), case)


@exercise("ch3.adam", part="state")
@LARGE
@given(case=_resumed("adam"))
def test_adam_resumes_from_its_state_dict(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adam, impl, case), case)


@exercise("ch3.adamw", part="state")
@LARGE
@given(case=_resumed("adamw"))
def test_adamw_resumes_from_its_state_dict(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adamw, impl, case), case)


@exercise("ch3.adagrad", part="state")
@LARGE
@given(case=_resumed("adagrad"))
def test_adagrad_resumes_from_its_state_dict(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.adagrad, impl, case), case)


@exercise("ch3.lion", part="state")
@LARGE
@given(case=_resumed("lion"))
def test_lion_resumes_from_its_state_dict(harness, impl, case):
    checks.assert_optimizer_result(harness.run(tasks.lion, impl, case), case)
