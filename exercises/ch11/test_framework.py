"""Chapter 11 graders: the capstone (``framework.py``).

Your ``Trainer3D`` trains a small GPT for 10 steps on every rank of a world of 4 or 8 processes,
split tp × pp × dp, from your own chapter 5, 6 and 7 code: the loss curve of the last stage must be
single-device training's; each step's messages and collectives must be the ones 3D parallelism
needs (bounded both ways); and each rank must keep only its own share of the model alive, and at
its peak hold no more microbatches' activations than 1F1B does.
"""

from hypothesis import given

from graders.chapters.ch11 import tasks
from graders.chapters.ch11.framework import cases as training_cases
from graders.chapters.ch11.framework import checks as training_checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples

#: a whole training run on up to 8 processes on two cores: an eighth of the profile's examples, at
#: least 3, after the two explicit ones (a run is shared by the three parts when their cases agree)
FEW = fewer_examples(1 / 8, minimum=3)


@exercise("ch11.trainer_3d", part="result")
@FEW
@given(case=training_cases.train_cases())
@smallest_first(*training_cases.TRAIN_EDGES)
def test_the_loss_curve_is_single_device_training(harness, impl, case):
    training_checks.assert_losses(harness.run(tasks.trainer_3d, impl, case), case)


@exercise("ch11.trainer_3d", part="traffic")
@FEW
@given(case=training_cases.train_cases())
@smallest_first(*training_cases.TRAIN_EDGES)
def test_each_step_sends_what_3d_parallelism_needs(harness, impl, case):
    training_checks.assert_traffic(harness.run(tasks.trainer_3d, impl, case), case)


@exercise("ch11.trainer_3d", part="memory")
@FEW
@given(case=training_cases.train_cases(training_cases.FOUR_RANK_GRIDS))
@smallest_first(*training_cases.MEMORY_EDGES)
def test_each_rank_keeps_its_share_and_1f1b_peak(harness, impl, case):
    training_checks.assert_memory(harness.run(tasks.trainer_3d_measured, impl, case), case)
