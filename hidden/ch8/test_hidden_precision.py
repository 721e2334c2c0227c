"""Hidden graders of chapter 8: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points:
* the loss scaler over long runs (up to 40 steps, growth intervals up to 8), where a scale
  that grows or backs off one step late drifts away from torch's GradScaler;
* gradient accumulation with many small, uneven microbatches (up to 8 of 1-3 rows), on 2-4
  ranks, where a mean of the microbatch means is furthest from the token mean.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch8 import cases, checks, tasks
from graders.judge import strategies as S
from graders.plugin import exercise

#: Large examples cost more: fewer of them than the profile's count, in every profile.
LARGE = settings(max_examples=10)


@st.composite
def long_scaler_cases(draw):
    steps = draw(st.integers(20, 40))
    return cases.ScalerCase(
        float(2 ** draw(st.integers(4, 16))),
        draw(st.sampled_from((2.0, 1.5))),
        draw(st.sampled_from((0.5, 0.75))),
        draw(st.integers(2, 8)),
        tuple(draw(st.lists(st.sampled_from(cases.OVERFLOWS), min_size=steps, max_size=steps))),
        tuple(draw(st.lists(st.booleans(), min_size=steps, max_size=steps))),
        draw(S.seeds),
    )


@exercise("ch8.dynamic_loss_scaler", part="scale")
@LARGE
@given(case=long_scaler_cases())
def test_loss_scale_over_a_long_run(harness, impl, case):
    checks.assert_scale_trajectory(harness.run(tasks.dynamic_loss_scaler, impl, case), case)


@st.composite
def many_microbatch_cases(draw):
    world_size, group = draw(S.worlds(min_members=2))
    sizes = tuple(tuple(draw(st.lists(st.integers(1, 3), min_size=4, max_size=8))) for _ in range(2))
    return cases.build_accumulation(
        world_size, group, draw(st.integers(1, 3)), sizes, dtype="float64", seed=draw(S.seeds)
    )


@exercise("ch8.accumulation_step", part="result")
@LARGE
@given(case=many_microbatch_cases())
def test_accumulation_over_many_small_microbatches(harness, impl, case):
    checks.assert_accumulated(harness.run(tasks.accumulation_step, impl, case), case)
