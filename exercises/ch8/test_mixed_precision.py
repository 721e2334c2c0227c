"""Chapter 8 graders: mixed precision with fp32 masters (``mixed_precision.py``).

Your trainer trains a small model for 1-4 steps of AdamW in bf16, or in fp16 with torch's
``GradScaler("cpu")`` as its loss scaler, under the live ledger; the parameters, the masters
and the losses after every step are compared with a reference that makes the same casts, and
the bytes alive between steps must be the parameters, the masters and AdamW's moments.
"""

from hypothesis import given

from graders.chapters.ch8 import cases, tasks
from graders.chapters.ch8.mixed_precision import checks as precision_checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch8.mixed_precision_trainer", part="result")
@given(case=cases.precision_cases())
@smallest_first(*cases.PRECISION_EDGES)
def test_mixed_precision_trainer(harness, impl, case):
    precision_checks.assert_trained(harness.run(tasks.mixed_precision_trainer, impl, case), case)


@exercise("ch8.mixed_precision_trainer", part="memory")
@given(case=cases.precision_cases())
@smallest_first(*cases.PRECISION_EDGES)
def test_mixed_precision_trainer_keeps_masters_and_state_only(harness, impl, case):
    precision_checks.assert_kept(harness.run(tasks.mixed_precision_trainer, impl, case), case)
