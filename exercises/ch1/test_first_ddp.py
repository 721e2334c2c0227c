"""Chapter 1 graders: a first DDP training script (``first_ddp.py``).

Your script runs as ``torchrun --nproc-per-node 2 first_ddp.py --data ... --out ...`` (torch's
own launcher, with a deadline), on a random dataset and model. The grader sees the rows each
process fed its model at each step, what each printed and saved, and the checkpoint: the weights
must equal one process's training on the global batches, each epoch's shards must be disjoint,
cover the dataset and be reshuffled, and only rank 0 may print and save.
"""

from hypothesis import given, seed

from graders.chapters.ch1 import tasks
from graders.chapters.ch1.first_ddp import cases as ddp_cases
from graders.chapters.ch1.first_ddp import checks as ddp_checks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples

#: a launch costs about a second: a third of the profile's examples (the explicit ones first)
FEW = fewer_examples(1 / 3, minimum=3)
#: the three parts draw the same scripts' runs, so that each run is launched once (the grader's
#: pool keeps a launch's outcome for the other parts)
SAME_RUNS = seed(20261203)


@exercise("ch1.first_ddp", part="result")
@FEW
@SAME_RUNS
@given(case=ddp_cases.ddp_cases())
@smallest_first(*ddp_cases.DDP_EDGES)
def test_ddp_trains_like_one_process_on_the_global_batches(harness, impl, case):
    ddp_checks.assert_ddp_result(harness.run(tasks.first_ddp, impl, case), case)


@exercise("ch1.first_ddp", part="shards")
@FEW
@SAME_RUNS
@given(case=ddp_cases.ddp_cases())
@smallest_first(*ddp_cases.DDP_EDGES)
def test_each_epoch_is_sharded_and_reshuffled(harness, impl, case):
    ddp_checks.assert_shards(harness.run(tasks.first_ddp, impl, case), case)


@exercise("ch1.first_ddp", part="rank0")
@FEW
@SAME_RUNS
@given(case=ddp_cases.ddp_cases())
@smallest_first(*ddp_cases.DDP_EDGES)
def test_only_rank_zero_logs_and_saves(harness, impl, case):
    ddp_checks.assert_rank_zero(harness.run(tasks.first_ddp, impl, case), case)
