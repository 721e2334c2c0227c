"""Chapter 5 graders: ZeRO-1, ZeRO-2 and ZeRO-3 (zero.py).

Run ``pytest exercises/ch5`` to grade your stubs; ``--impl PATH`` grades another folder.
Every property trains the tiny LM (tied, frozen, unused and odd-sized parameters) for three
AdamW steps on 1-4 real gloo ranks and compares every rank's parameters with single-device
training on the global batch; then it checks what each rank held and what it sent.
"""

from hypothesis import example, given

from graders.chapters.ch5 import cases, checks, memory, tasks, traffic
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples

#: the structural parts (memory, traffic, cross-check) re-run the same training: a quarter of the
#: profile's examples each, on top of the result part's full share.
STRUCTURE = fewer_examples(1 / 4)
#: ZeRO-3 issues a collective per layer, twice per step: its result part draws half as many
HALF = fewer_examples(1 / 2)
#: the memory parts measure Adam's state (two tensors per element), the biggest share
ADAMW = ("adamw",)


# -- ZeRO-1 ----------------------------------------------------------------------------------------


@exercise("ch5.zero1", part="result")
@given(case=cases.train_cases())
@example(case=cases.edge(1, optimizer=cases.ADAMW))
@example(case=cases.edge(4, (1, 2, 3)))
@example(case=cases.edge(4))
def test_zero1(harness, impl, case):
    checks.assert_zero_result(harness.run(tasks.zero1_train, impl, case), case)


@exercise("ch5.zero1", part="memory")
@given(case=cases.train_cases(min_world=2, optimizers=ADAMW))
@STRUCTURE
@example(case=cases.edge(2, optimizer=cases.ADAMW, wide=True))
@example(case=cases.edge(3, optimizer=cases.ADAMW))
def test_zero1_partitions_optimizer_state(harness, impl, case):
    memory.assert_zero1_memory(harness.run(tasks.zero1_measured, impl, case), case)


@exercise("ch5.zero1", part="traffic")
@given(case=cases.train_cases(min_world=2))
@STRUCTURE
@example(case=cases.edge(2))
def test_zero1_sends_what_data_parallelism_sends(harness, impl, case):
    traffic.assert_zero1_traffic(harness.run(tasks.zero1_train, impl, case), case)


@exercise("ch5.zero1", part="crosscheck")
@given(case=cases.train_cases())
@STRUCTURE
@example(case=cases.edge(3, (0, 2)))
def test_zero1_matches_torch_zero_redundancy_optimizer(harness, impl, case):
    checks.assert_matches_torch_zero(harness.run(tasks.zero1_against_torch, impl, case), case)


# -- ZeRO-2 ----------------------------------------------------------------------------------------


@exercise("ch5.zero2", part="result")
@given(case=cases.train_cases(buckets=True))
@example(case=cases.edge(1, bucket_cap_mb=25.0))
@example(case=cases.edge(3, (0, 2), bucket_cap_mb=0.0003))
@example(case=cases.edge(4, bucket_cap_mb=0.0001))
def test_zero2(harness, impl, case):
    checks.assert_zero_result(harness.run(tasks.zero2_train, impl, case), case)


@exercise("ch5.zero2", part="memory")
@given(case=cases.train_cases(min_world=2, buckets=True, optimizers=ADAMW))
@STRUCTURE
@example(case=cases.edge(2, bucket_cap_mb=0.01, optimizer=cases.ADAMW, wide=True))
@example(case=cases.edge(4, bucket_cap_mb=0.0001, optimizer=cases.ADAMW))
def test_zero2_releases_gradients(harness, impl, case):
    memory.assert_zero2_memory(harness.run(tasks.zero2_measured, impl, case), case)


@exercise("ch5.zero2", part="traffic")
@given(case=cases.train_cases(min_world=2, buckets=True))
@STRUCTURE
@example(case=cases.edge(2, bucket_cap_mb=0.0001))
@example(case=cases.edge(3, bucket_cap_mb=0.0003))
def test_zero2_reduce_scatters_each_bucket_during_backward(harness, impl, case):
    traffic.assert_zero2_traffic(harness.run(tasks.zero2_train, impl, case), case)


# -- ZeRO-3 ----------------------------------------------------------------------------------------


@exercise("ch5.zero3", part="result")
@given(case=cases.train_cases())
@HALF
@example(case=cases.edge(1))
@example(case=cases.edge(3, (0, 2)))
@example(case=cases.edge(4))
def test_zero3(harness, impl, case):
    checks.assert_zero3_result(harness.run(tasks.zero3_train, impl, case), case)


@exercise("ch5.zero3", part="memory")
@given(case=cases.train_cases(min_world=2, optimizers=ADAMW))
@STRUCTURE
@example(case=cases.edge(2, optimizer=cases.ADAMW, wide=True))
@example(case=cases.edge(4, optimizer=cases.ADAMW))
def test_zero3_holds_only_shards(harness, impl, case):
    memory.assert_zero3_memory(harness.run(tasks.zero3_measured, impl, case), case)


@exercise("ch5.zero3", part="traffic")
@given(case=cases.train_cases(min_world=2))
@STRUCTURE
@example(case=cases.edge(2))
def test_zero3_gathers_in_forward_and_again_in_backward(harness, impl, case):
    traffic.assert_zero3_traffic(harness.run(tasks.zero3_train, impl, case), case)
