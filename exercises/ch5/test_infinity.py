"""Chapter 5 graders: ZeRO-Infinity's optimizer (infinity.py).

Three steps of the tiny LM on 1-4 real gloo ranks, the shard's masters and optimizer state on a
drive the kit hands over (a fresh folder per rank, cut into 3-5 partitions): the parameters
after every step against single-device training; what each step read and wrote; that the next
partition was read while the current one was stepped; what was alive in memory; what a write
cut off half-way leaves on the drive; and, with ``sharded=True``, ZeRO-3's shards stepped with no
collective of the optimizer's own.
"""

from hypothesis import example, given

from graders.chapters.ch5 import cases, checks
from graders.chapters.ch5.infinity import checks as infinity_checks
from graders.chapters.ch5.infinity import tasks as infinity_tasks
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples
from graders.words.messages import say

#: the structural parts re-run the same training: a quarter of the profile's examples each
STRUCTURE = fewer_examples(1 / 4)
#: every example pages three steps through the drive: the result part draws half as many
HALF = fewer_examples(1 / 2)
ADAMW = ("adamw",)


@exercise("ch5.infinity", part="result")
@given(case=cases.infinity_cases())
@HALF
@example(case=cases.edge(1, optimizer=cases.ADAMW, partitions=4))
@example(case=cases.edge(2, partitions=5))
@example(case=cases.edge(4, (1, 2, 3), partitions=3))
def test_infinity(harness, impl, case):
    run = harness.run(infinity_tasks.infinity_train, impl, case)
    checks.assert_trained_like_one_device(
        run, case, say("ch5:infinity:result:hint") + " " + say("ch5:no grad:hint")
    )


@exercise("ch5.infinity", part="paging")
@given(case=cases.infinity_cases(optimizers=ADAMW))
@STRUCTURE
@example(case=cases.edge(3, optimizer=cases.ADAMW, partitions=4))
def test_infinity_pages_every_partition_once_per_step(harness, impl, case):
    infinity_checks.assert_paging(harness.run(infinity_tasks.infinity_train, impl, case), case)


@exercise("ch5.infinity", part="prefetch")
@given(case=cases.infinity_cases(optimizers=ADAMW))
@STRUCTURE
@example(case=cases.edge(2, optimizer=cases.ADAMW, partitions=4))
def test_infinity_reads_the_next_partition_while_stepping(harness, impl, case):
    infinity_checks.assert_prefetch(harness.run(infinity_tasks.infinity_train, impl, case), case)


@exercise("ch5.infinity", part="memory")
@given(case=cases.infinity_cases(min_world=2, optimizers=ADAMW))
@STRUCTURE
@example(case=cases.edge(2, optimizer=cases.ADAMW, partitions=5))
@example(case=cases.edge(2, optimizer=cases.ADAMW, partitions=5, wide=True))
def test_infinity_holds_two_partitions_at_most(harness, impl, case):
    infinity_checks.assert_memory(harness.run(infinity_tasks.infinity_measured, impl, case), case)


@exercise("ch5.infinity", part="crash")
@given(case=cases.crash_cases())
@STRUCTURE
def test_infinity_survives_a_torn_write(harness, impl, case):
    infinity_checks.assert_crash_safe(harness.run(infinity_tasks.infinity_crash, impl, case)[0], case)


@exercise("ch5.infinity", part="zero3")
@given(case=cases.infinity_cases())
@STRUCTURE
@example(case=cases.edge(3, (0, 2), optimizer=cases.ADAMW, partitions=3))
def test_infinity_steps_the_shards_of_zero3(harness, impl, case):
    infinity_checks.assert_composes_with_zero3(harness.run(infinity_tasks.infinity_zero3, impl, case), case)
