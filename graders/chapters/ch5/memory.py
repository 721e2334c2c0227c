"""Chapter 5 memory promises: what each rank keeps alive, against each stage's 1/N share.

``run[rank]["live"]`` comes from the worker's live ledger
(:class:`graders.training.measured_training.MeasuredTraining`): every tensor storage alive on the
rank, whoever holds it, at peaks inside phases and between steps. Each stage's promise is a
list of :class:`~graders.training.memory_promises.LivePromise`; limits are the rank's
partition of the model plus what a single device measured on the same rows (activations,
autograd's temporaries), so nothing about the model's internals is guessed.

A rank's partition may be its balanced share (``sum(ceil(numel / N))`` elements) or a
greedy, whole-parameter one (as torch's ``ZeroRedundancyOptimizer`` builds), up to the
balanced share plus the largest parameter, aligned to 16 bytes; summed over the ranks, the
partitions hold every element once.
"""

from __future__ import annotations

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import TrainCase
from graders.chapters.ch5.checks import assert_trained_like_one_device, value_of
from graders.training.memory_promises import LivePromise, assert_live_promises, single_device_activations
from graders.words.messages import say

SLACK = reference.LIVE_SLACK_BYTES


def _partitioned_state(case: TrainCase) -> list[LivePromise]:
    """ZeRO-1 and 2: between steps a rank keeps its partition of the parameters (when they
    are not the model's own), of their gradients, and K optimizer states per element. What a
    step makes and keeps is the state, and may include the gradient partition's buffer (a
    buffer reused from step to step is born in the first step, like the state)."""
    k = case.optimizer.states_per_element
    part, parts = reference.partition_bytes(case), reference.partitions_bytes(case)
    steps = reference.step_bytes()
    return [
        LivePromise(
            "kept",
            say("ch5:memory:kept:label"),
            say("ch5:memory:kept partition", k=k),
            lambda live: (k + 2) * part + steps + SLACK,
            total=(k + 2) * parts + case.n * (steps + SLACK),
            hint=say("ch5:memory:keep:hint"),
        ),
        LivePromise(
            "state",
            say("ch5:memory:state:label"),
            say("ch5:memory:state", k=k),
            lambda live: (k + 1) * part + steps + SLACK,
            total=(k + 1) * parts + case.n * (steps + SLACK),
            hint=say("ch5:memory:state:hint"),
        ),
    ]


def _gradients_partitioned(case: TrainCase) -> list[LivePromise]:
    """ZeRO-2: gradients leave the rank bucket by bucket while backward runs."""
    layout = reference.buckets(case)
    part, bucket = reference.partition_bytes(case), reference.largest_bucket_bytes(case)
    waiting = layout.held_after_backward(reference.model_facts(case.config))
    last = layout.on_the_wire(case)
    wire = reference.two_buckets_on_the_wire(case)
    return [
        LivePromise(
            "on_the_wire",
            say("ch5:memory:on the wire:label"),
            say("ch5:memory:on the wire", wire=wire),
            lambda live: wire + SLACK,
            hint=say("ch5:memory:on the wire:hint"),
        ),
        LivePromise(
            "grads_at_backward_end",
            say("ch5:memory:grads at backward end:label"),
            say("ch5:memory:grads at backward end", waiting=waiting),
            lambda live: part + last + last // case.n + waiting + SLACK,
            hint=say("ch5:memory:grads at backward end:hint"),
        ),
        LivePromise(
            "fresh:backward",
            say("ch5:memory:grads in backward:label"),
            say("ch5:memory:grads in backward", bucket=bucket),
            lambda live: live["plain"]["backward_working_set"] + part + waiting + 3 * bucket + SLACK,
            hint=say("ch5:memory:grads in backward:hint"),
        ),
    ]


def _parameters_partitioned(case: TrainCase) -> list[LivePromise]:
    """ZeRO-3: shards at rest; one layer gathered at a time (two while the next is prefetched)."""
    k = case.optimizer.states_per_element
    params = reference.shard_bytes(case, trained_only=False)
    grads = reference.shard_bytes(case)
    at_rest = params + k * grads + reference.step_bytes()  # before forward: no gradients
    # between steps the shards may be aligned, 16 bytes per parameter's partition
    aligned_grads = reference.aligned_shard_bytes(case)
    kept = (
        reference.aligned_shard_bytes(case, trained_only=False)
        + (k + 1) * aligned_grads
        + reference.step_bytes()
    )
    layer = reference.gathered_unit_bytes(case, 1)
    # two layers while the next is prefetched, beside the model's own parameters (used around them)
    two_layers = reference.gathered_unit_bytes(case, 2) + reference.root_unit_bytes(case)

    return [
        LivePromise(
            "kept",
            say("ch5:memory:kept:label"),
            say("ch5:memory:kept shards"),
            lambda live: kept + SLACK,
            hint=say("ch5:memory:keep:hint"),
        ),
        LivePromise(
            "at_forward_end",
            say("ch5:memory:at forward end:label"),
            say("ch5:memory:at forward end", layer=layer),
            lambda live: single_device_activations(live, "at_forward_end") + at_rest + layer + SLACK,
            hint=say("ch5:memory:at forward end:hint"),
        ),
        LivePromise(
            "gathered:forward",
            say("ch5:memory:gathered in forward:label"),
            say("ch5:memory:gathered in forward", two_layers=two_layers),
            lambda live: two_layers + SLACK,
            hint=say("ch5:memory:gathered in forward:hint"),
        ),
        LivePromise(
            "gathered:backward",
            say("ch5:memory:gathered in backward:label"),
            say("ch5:memory:gathered in backward", two_layers=two_layers),
            lambda live: two_layers + SLACK,
            hint=say("ch5:memory:gathered in backward:hint"),
        ),
        LivePromise(
            "peak:forward",
            say("ch5:memory:peak in forward:label"),
            say("ch5:memory:peak in forward", two_layers=two_layers),
            lambda live: single_device_activations(live, "forward") + at_rest + two_layers + SLACK,
            hint=say("ch5:memory:peak in forward:hint"),
        ),
    ]


def _lives(run, case: TrainCase) -> dict[int, dict]:
    return {rank: value_of(run, rank, case)["live"] for rank in case.ranks}


def assert_zero1_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    assert_live_promises(
        _lives(run, case), _partitioned_state(case), say("ch5:memory:title", stage=1, n=case.n), case
    )


def assert_zero2_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    promises = _gradients_partitioned(case) + _partitioned_state(case)
    assert_live_promises(_lives(run, case), promises, say("ch5:memory:title", stage=2, n=case.n), case)


def assert_zero3_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case, last_step_only=True)
    assert_live_promises(
        _lives(run, case), _parameters_partitioned(case), say("ch5:memory:title", stage=3, n=case.n), case
    )
