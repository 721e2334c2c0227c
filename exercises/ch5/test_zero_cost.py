"""Chapter 5 graders: the memory and communication cost of each ZeRO stage (zero_cost.py)."""

import math

from hypothesis import example, given

from graders.chapters.ch5 import cases, reference, tasks
from graders.checks import fail
from graders.plugin import exercise

STAGE_HINT = (
    "per parameter: 2 bytes of fp16 weights, 2 of fp16 gradients, K of optimizer state; stage 1 "
    "divides the K bytes by N, stage 2 the gradients too, stage 3 everything."
)


def _number(reply, what, case, hint):
    if "raised" in reply:
        fail(f"{what}: raised {reply['raised']} for a valid stage.", case, hint)
    value = reply["value"]
    if not isinstance(value, int | float) or isinstance(value, bool):
        fail(f"{what}: expected a number, got {value!r}.", case, hint)
    return value


def _assert_close(value, expected, what, case, hint):
    if not math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12):
        fail(f"{what}: expected {expected!r}, got {value!r}.", case, hint)


def _paper_rows(test):
    for stage, _ in cases.PAPER_TABLE:
        test = example(case=cases.CostCase(stage, 7.5e9, 64))(test)
    return example(case=cases.CostCase(4, 7.5e9, 64))(test)


@exercise("ch5.zero_memory_per_gpu", part="formula")
@given(case=cases.cost_cases())
@_paper_rows
def test_zero_memory_per_gpu(harness, impl, case):
    reply = harness.run(tasks.zero_memory_per_gpu, impl, case)[0]
    _assert_answer(
        reply, reference.memory_per_gpu, ("GB per GPU", "GB per GPU (1 GB = 1e9 bytes)"), case, STAGE_HINT
    )


def _assert_answer(reply, expected, what, case, hint):
    """A stage that does not exist must raise ValueError; a valid one must give ``expected(case)``.

    ``what`` names the answer twice: briefly, then with its unit for the comparison."""
    if case.stage not in (0, 1, 2, 3):
        if reply.get("raised") != "ValueError":
            fail(f"stage {case.stage} does not exist: expected ValueError, got {reply.get('value')!r}.", case)
        return
    value = _number(reply, what[0], case, hint)
    _assert_close(value, expected(case), what[1], case, hint)


@exercise("ch5.zero_memory_per_gpu", part="paper")
@given(case=cases.cost_cases(with_k=False))
def test_zero_memory_per_gpu_reproduces_the_paper(harness, impl, case):
    for stage, printed in cases.PAPER_TABLE:
        row = cases.CostCase(stage, 7.5e9, 64)
        value = _number(
            harness.run(tasks.zero_memory_per_gpu, impl, row)[0], f"stage {stage}", row, STAGE_HINT
        )
        if abs(value - printed) > 0.05:
            fail(
                f"the ZeRO paper gives {printed} GB per GPU for stage {stage} (7.5B parameters, 64 GPUs, "
                f"K = 12); your function gives {value!r}.",
                row,
                STAGE_HINT,
            )
    value = _number(harness.run(tasks.zero_memory_per_gpu, impl, case)[0], "GB per GPU", case, STAGE_HINT)
    _assert_close(value, reference.memory_per_gpu(case), "GB per GPU", case, STAGE_HINT)


COMM_HINT = (
    "count passes of Φ elements, as the paper does (a ring's (N-1)/N rounded to 1): stages 0-2 "
    "send two per step (2Φ), stage 3 three (parameters gathered in forward and again in backward)."
)


@exercise("ch5.zero_comm_volume", part="formula")
@given(case=cases.cost_cases(with_k=False))
@example(case=cases.CostCase(1, 7.5e9, 64))
@example(case=cases.CostCase(3, 7.5e9, 64))
@example(case=cases.CostCase(0, 1e6, 1))
@example(case=cases.CostCase(2, 1e6, 2))
@example(case=cases.CostCase(4, 7.5e9, 64))
def test_zero_comm_volume(harness, impl, case):
    reply = harness.run(tasks.zero_comm_volume, impl, case)[0]
    what = ("elements sent per GPU", "elements sent per GPU per step")
    _assert_answer(reply, reference.comm_volume, what, case, COMM_HINT)
