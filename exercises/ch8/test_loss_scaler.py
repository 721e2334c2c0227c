"""Chapter 8 graders: dynamic loss scaling (``loss_scaler.py``).

Your scaler and ``torch.amp.GradScaler("cpu")`` run the same random sequence of steps on two
copies of a tiny model; after each backward an overflow (inf, -inf or NaN) is written into one
gradient on some steps, and some steps call ``unscale_`` before ``step``, as gradient clipping
does (then once more, which must raise ``RuntimeError`` and change nothing). The scales, the
skipped steps, the unscaled gradients and the parameters must be torch's.
"""

from hypothesis import given

from graders.chapters.ch8 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch8.dynamic_loss_scaler", part="scale")
@given(case=cases.scaler_cases())
@smallest_first(*cases.SCALER_EDGES)
def test_loss_scale_follows_grad_scaler(harness, impl, case):
    checks.assert_scale_trajectory(harness.run(tasks.dynamic_loss_scaler, impl, case), case)


@exercise("ch8.dynamic_loss_scaler", part="skip")
@given(case=cases.scaler_cases())
@smallest_first(*cases.SCALER_EDGES)
def test_overflowing_steps_are_skipped(harness, impl, case):
    checks.assert_skipped_steps(harness.run(tasks.dynamic_loss_scaler, impl, case), case)


@exercise("ch8.dynamic_loss_scaler", part="unscale")
@given(case=cases.scaler_cases())
@smallest_first(*cases.SCALER_EDGES)
def test_gradients_are_unscaled(harness, impl, case):
    checks.assert_unscaled(harness.run(tasks.dynamic_loss_scaler, impl, case), case)
