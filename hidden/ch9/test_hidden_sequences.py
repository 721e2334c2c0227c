"""Hidden graders of chapter 9: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points: Ulysses on a
world of 4 with up to 8 heads and longer chunks, causal and not, in float64; Ring Attention's
gradients on a world of 4 with longer chunks, and over the zigzag layout with chunks of up to 8.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch9 import cases, checks, tasks
from graders.chapters.ch9.ring import checks as ring_checks
from graders.judge import strategies as S
from graders.plugin import exercise

#: Large examples cost more: fewer of them than the profile's count, in every profile.
LARGE = settings(max_examples=8)


@st.composite
def large_ulysses_cases(draw):
    return cases.build_sharded(
        4,
        None,
        draw(st.integers(3, 8)),
        4 * draw(st.integers(1, 2)),
        draw(st.integers(2, 8)),
        draw(st.booleans()),
        dtype="float64",
        seed=draw(S.seeds),
    )


@exercise("ch9.ulysses_attention", part="result")
@LARGE
@given(case=large_ulysses_cases())
def test_ulysses_attention_on_a_larger_world(harness, impl, case):
    checks.assert_ulysses(harness.run(tasks.ulysses_attention, impl, case), case)


@st.composite
def large_ring_cases(draw, layout: str):
    return cases.build_sharded(
        4,
        None,
        2 * draw(st.integers(2, 4)),
        draw(st.integers(1, 4)),
        draw(st.integers(2, 8)),
        draw(st.booleans()) if layout == "contiguous" else True,
        dtype="float64",
        seed=draw(S.seeds),
        layout=layout,
    )


@exercise("ch9.ring_attention", part="backward")
@LARGE
@given(case=large_ring_cases("contiguous"))
def test_ring_attention_backward_on_a_larger_world(harness, impl, case):
    ring_checks.assert_ring_backward(harness.run(tasks.ring_attention, impl, case), case)


@exercise("ch9.zigzag_ring_attention", part="result")
@LARGE
@given(case=large_ring_cases("zigzag"))
def test_zigzag_ring_attention_with_longer_chunks(harness, impl, case):
    ring_checks.assert_zigzag_ring(harness.run(tasks.zigzag_ring_attention, impl, case), case)
