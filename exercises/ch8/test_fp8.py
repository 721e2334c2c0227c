"""Chapter 8 graders: FP8, simulated (``fp8.py``).

Your functions run in a worker on tensors from 10⁻⁸ to 10⁸ in size, with zeros, ±inf and NaN
written in for the rules; their FP8 tensors are compared element by element (NaN with NaN) and
their scales exactly with the README's rules written out again; the FP8 linear layer with the
quantize → multiply → dequantize simulation, and with the error bound of FP8 arithmetic around
the fp32 product.
"""

from hypothesis import given

from graders.chapters.ch8 import tasks
from graders.chapters.ch8.fp8 import cases, checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch8.quantize_fp8", part="result")
@given(case=cases.quantize_cases())
@smallest_first(*cases.QUANTIZE_EDGES)
def test_quantize_fp8(harness, impl, case):
    checks.assert_quantized(harness.run(tasks.quantize_fp8, impl, case), case)


@exercise("ch8.quantize_fp8", part="rules")
@given(case=cases.quantize_cases(specials=cases.SPECIALS))
@smallest_first(*cases.RULES_EDGES)
def test_quantize_fp8_saturates_keeps_nan_and_handles_zero_amax(harness, impl, case):
    checks.assert_quantized(harness.run(tasks.quantize_fp8, impl, case), case)


@exercise("ch8.delayed_scaling", part="result")
@given(case=cases.delayed_cases())
@smallest_first(*cases.DELAYED_EDGES)
def test_delayed_scaling(harness, impl, case):
    checks.assert_delayed(harness.run(tasks.delayed_scaling, impl, case), case)


@exercise("ch8.fp8_linear", part="result")
@given(case=cases.fp8_linear_cases())
@smallest_first(*cases.FP8_LINEAR_EDGES)
def test_fp8_linear(harness, impl, case):
    checks.assert_fp8_linear(harness.run(tasks.fp8_linear, impl, case), case)
