"""Hidden graders of the capstone: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points: three blocks per
stage (a stage that runs only its first block, or the blocks of the wrong stage, shows), three
microbatches per stage (1F1B's steady state, where forwards and backwards of different microbatches
interleave on every stage), odd microbatch widths, longer sequences and 12 steps, on 4 processes.

Like the public cases, only cases whose loss curve float32's rounding does not move are drawn
(``training_cases.well_conditioned``): a deep, narrow model can drift chaotically.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch11 import tasks
from graders.chapters.ch11.framework import cases as training_cases
from graders.chapters.ch11.framework import checks as training_checks
from graders.plugin import exercise

#: a whole training run of a deeper model: few of them, in every profile
FEW = settings(max_examples=3)


def deep_train_cases():
    return _deep_train_cases().filter(training_cases.well_conditioned)


@st.composite
def _deep_train_cases(draw):
    tp, pp, dp = draw(st.sampled_from(training_cases.FOUR_RANK_GRIDS))
    return training_cases.TrainCase(
        tp=tp,
        pp=pp,
        dp=dp,
        layers=3 * pp,
        heads=tp * draw(st.sampled_from((1, 2))),
        microbatches=3 * pp,
        micro_batch=draw(st.sampled_from((1, 3))),
        vocab=24,
        seq=draw(st.sampled_from((5, 7))),
        optimizer=draw(st.sampled_from(tuple(training_cases.OPTIMIZERS))),
        steps=12,
        seed=draw(st.integers(0, 2**16)),
        data_seed=draw(st.integers(0, 2**16)),
    )


@exercise("ch11.trainer_3d", part="result")
@FEW
@given(case=deep_train_cases())
def test_a_deeper_model_trains_as_on_one_device(harness, impl, case):
    training_checks.assert_losses(harness.run(tasks.trainer_3d, impl, case), case)


@exercise("ch11.trainer_3d", part="traffic")
@FEW
@given(case=deep_train_cases())
def test_a_deeper_model_sends_what_3d_parallelism_needs(harness, impl, case):
    training_checks.assert_traffic(harness.run(tasks.trainer_3d, impl, case), case)
