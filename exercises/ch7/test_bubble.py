"""Chapter 7 graders: the bubble fraction, against the formula and against measured idle time."""

import math

from hypothesis import example, given

from graders.chapters.ch7 import cases, reference, tasks
from graders.checks import fail
from graders.plugin import exercise

Case = cases.BubbleCase


def _assert_close(actual, expected: float, what: str, case, hint: str = "") -> None:
    if not isinstance(actual, int | float) or isinstance(actual, bool):
        fail(f"{what}: expected a number, got {actual!r}.", case, hint)
    if not math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-12):
        fail(f"{what}: expected {expected!r}, got {actual!r}.", case, hint)


@exercise("ch7.bubble_fraction", part="formula")
@given(case=cases.bubble_cases())
@example(case=Case("gpipe", 1, 7))
@example(case=Case("1f1b", 4, 8))
@example(case=Case("interleaved", 4, 8, 2))
@example(case=Case("interleaved", 4, 8, 1))
def test_bubble_fraction(harness, impl, case):
    got = harness.run(tasks.bubble_fraction, impl, case)[0]
    _assert_close(
        got,
        reference.bubble_formula(case),
        "bubble fraction (idle share of the total time)",
        case,
        "each stage idles p - 1 forward+backward slots (their 1/v with v chunks) out of m + p - 1: "
        "divide the idle time by the total time, not by the useful time.",
    )


@exercise("ch7.bubble_fraction", part="measured")
@given(case=cases.measured_cases())
@example(case=Case("gpipe", 4, 3))
@example(case=Case("interleaved", 2, 4, 3))
def test_bubble_fraction_matches_measured_idle_time(harness, impl, case):
    got = harness.run(tasks.bubble_fraction, impl, case)[0]
    measured = reference.measured_bubble(case)
    _assert_close(
        got,
        float(measured),
        f"your bubble fraction vs. the idle share measured on torch's {case.name} schedule "
        f"(simulated, backward = 2 × forward: {measured})",
        case,
        "the idle share does not depend on how long a forward or a backward takes.",
    )
