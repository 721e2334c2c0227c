"""Chapter 5 graders: ZeRO-Offload's optimizer (offload.py).

Three AdamW steps of the tiny LM in bfloat16 on one rank, compared with mixed-precision
training with the same casts; then where every tensor lives and in which dtype.
"""

from hypothesis import given

from graders.chapters.ch5 import cases, checks, tasks
from graders.plugin import exercise


@exercise("ch5.offload", part="result")
@given(case=cases.offload_cases())
def test_offload(harness, impl, case):
    run = harness.run(tasks.offload_train, impl, case)
    checks.assert_offload_result(run, case)


@exercise("ch5.offload", part="placement")
@given(case=cases.offload_cases())
def test_offload_keeps_fp32_masters_and_state_on_the_host(harness, impl, case):
    run = harness.run(tasks.offload_placed, impl, case)
    checks.assert_offload_placement(run, case)
