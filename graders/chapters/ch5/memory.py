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

SLACK = reference.LIVE_SLACK_BYTES

KEEP_HINT = (
    "keep nothing of the full model between steps: no full gradients, no copies, in attributes, "
    "globals or closures alike; only this rank's partition, its gradient and its optimizer state."
)
STATE_HINT = (
    "build the inner optimizer on this rank's partition only: the state of elements another rank "
    "owns must not exist here, whatever class or container holds it."
)


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
            "kept between steps",
            f"a partition of the parameters, of their gradients and {k} optimizer state(s) per element",
            lambda live: (k + 2) * part + steps + SLACK,
            total=(k + 2) * parts + case.n * (steps + SLACK),
            hint=KEEP_HINT,
        ),
        LivePromise(
            "state",
            "optimizer state",
            f"optimizer state for this rank's partition only ({k} per element, and a gradient "
            "buffer kept for the next step)",
            lambda live: (k + 1) * part + steps + SLACK,
            total=(k + 1) * parts + case.n * (steps + SLACK),
            hint=STATE_HINT,
        ),
    ]


def _gradients_partitioned(case: TrainCase) -> list[LivePromise]:
    """ZeRO-2: gradients leave the rank bucket by bucket while backward runs."""
    layout = reference.buckets(case)
    part, bucket = reference.partition_bytes(case), reference.largest_bucket_bytes(case)
    waiting = layout.held_after_backward(reference.model_facts())
    last = layout.on_the_wire(case)
    wire = reference.two_buckets_on_the_wire(case)
    return [
        LivePromise(
            "on_the_wire",
            "on the wire in backward",
            f"one bucket on the wire while the next is launched: at most {wire:,} bytes held by "
            "asynchronous collectives at once",
            lambda live: wire + SLACK,
            hint="wait for the previous bucket's reduce-scatter when you launch the next one, not for "
            "all of them when backward ends.",
        ),
        LivePromise(
            "grads_at_backward_end",
            "gradients at backward end",
            "this rank's reduced chunks, the last bucket still on the wire and the gradients of the "
            f"buckets that wait for step() ({waiting:,} bytes)",
            lambda live: part + last + last // case.n + waiting + SLACK,
            hint="once a bucket is reduce-scattered, set the .grad of its parameters to None and drop "
            "its buffer: only the reduced chunk this rank owns is worth keeping.",
        ),
        LivePromise(
            "fresh:backward",
            "gradients in backward",
            "a single device's backward working set (the gradients of activations), plus the rank's "
            f"chunks and at most three buckets of {bucket:,} bytes at once",
            lambda live: live["plain"]["backward_working_set"] + part + waiting + 3 * bucket + SLACK,
            hint="free a bucket's gradients as soon as its reduce-scatter is launched, during backward.",
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
    layer, two_layers = reference.gathered_unit_bytes(case, 1), reference.gathered_unit_bytes(case, 2)

    return [
        LivePromise(
            "kept",
            "kept between steps",
            "the shards of the parameters, of their gradients and of the optimizer state",
            lambda live: kept + SLACK,
            hint=KEEP_HINT,
        ),
        LivePromise(
            "at_forward_end",
            "alive when forward ended",
            "a single device's activations, the shards and their state, and at most one gathered "
            f"layer ({layer:,} bytes)",
            lambda live: single_device_activations(live, "at_forward_end") + at_rest + layer + SLACK,
            hint="autograd saves the weights a layer used: with saved_tensors_hooks, save a key instead "
            "of a gathered parameter, and gather it again in backward.",
        ),
        LivePromise(
            "gathered:forward",
            "gathered in forward",
            f"one layer gathered at a time, or two while the next is prefetched ({two_layers:,} bytes)",
            lambda live: two_layers + SLACK,
            hint="gather a layer's parameters in its own forward pre-hook (or prefetch only the next "
            "layer's), and release them after its forward: never the whole model at once.",
        ),
        LivePromise(
            "gathered:backward",
            "gathered in backward",
            f"one layer gathered again at a time, or two while the next is prefetched ({two_layers:,} bytes)",
            lambda live: two_layers + SLACK,
            hint="in backward, gather a layer's parameters when autograd unpacks them and let them go "
            "when its gradient is done: never the whole model at once.",
        ),
        LivePromise(
            "peak:forward",
            "peak in forward",
            "a single device's activations, the shards and their state, and one layer gathered at a "
            f"time, or two while the next is prefetched ({two_layers:,} bytes)",
            lambda live: single_device_activations(live, "forward") + at_rest + two_layers + SLACK,
            hint="gather a layer's parameters in its own forward pre-hook and release them after its "
            "forward, never the whole model at once.",
        ),
    ]


def _lives(run, case: TrainCase) -> dict[int, dict]:
    return {rank: value_of(run, rank, case)["live"] for rank in case.ranks}


def assert_zero1_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    assert_live_promises(_lives(run, case), _partitioned_state(case), f"ZeRO-1, {case.n} ranks", case)


def assert_zero2_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    promises = _gradients_partitioned(case) + _partitioned_state(case)
    assert_live_promises(_lives(run, case), promises, f"ZeRO-2, {case.n} ranks", case)


def assert_zero3_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case, last_step_only=True)
    assert_live_promises(_lives(run, case), _parameters_partitioned(case), f"ZeRO-3, {case.n} ranks", case)
