"""Chapter 7 graders: the bubble fraction, against the formula and against measured idle time."""

from hypothesis import example, given

from graders.chapters.ch7 import cases, checks, tasks
from graders.plugin import exercise

Case = cases.BubbleCase


@exercise("ch7.bubble_fraction", part="formula")
@given(case=cases.bubble_cases())
@example(case=Case("gpipe", 1, 7))
@example(case=Case("1f1b", 4, 8))
@example(case=Case("interleaved", 4, 8, 2))
@example(case=Case("interleaved", 4, 8, 1))
def test_bubble_fraction(harness, impl, case):
    checks.assert_bubble_formula(harness.run(tasks.bubble_fraction, impl, case)[0], case)


@exercise("ch7.bubble_fraction", part="measured")
@given(case=cases.measured_cases())
@example(case=Case("interleaved", 2, 4, 3))
@example(case=Case("gpipe", 4, 3))
def test_bubble_fraction_matches_measured_idle_time(harness, impl, case):
    checks.assert_bubble_measured(harness.run(tasks.bubble_fraction, impl, case)[0], case)
