"""Chapter 4 memory promise: sharded data parallelism keeps a shard, and gathers only in passing.

``run[rank]["live"]`` comes from the worker's live ledger
(:class:`graders.training.measured_training.MeasuredTraining`): every tensor storage alive on
the rank, whoever holds it. Limits are the rank's shard plus what a single device measured
on the same rows (activations), so nothing about the model's internals is guessed.
"""

from __future__ import annotations

from graders.chapters.ch4 import reference
from graders.chapters.ch4.cases import TrainCase
from graders.chapters.ch4.checks import assert_sharded_trains_like_one_device
from graders.training.memory_promises import LivePromise, assert_live_promises, single_device_activations

#: bytes of bookkeeping a rank may keep beyond the promise (a step counter, a flag tensor)
SLACK = 64
#: a step counter per tensor an optimizer steps (8 bytes covers a float64 one)
STEP_BYTES = 8


def sharded_promises(case: TrainCase) -> list[LivePromise]:
    _, shard, frozen = reference.persistent_bytes_bound(case)
    k = case.optimizer.states_per_element
    at_rest = shard + k * shard + frozen + STEP_BYTES  # the shard, its state, the frozen parameters
    gathered = shard * case.n

    return [
        LivePromise(
            "kept",
            "kept between steps",
            f"the shard ({shard:,} bytes), its gradient and optimizer state, and the frozen parameters",
            lambda live: at_rest + shard + SLACK,
            hint="release the module's own trainable parameters at construction and keep the shard as "
            "its own tensor (a slice of a bigger tensor keeps all of it alive: clone it).",
        ),
        LivePromise(
            "at_forward_end",
            "alive when forward ended",
            "a single device's activations, the shard and its state: nothing gathered",
            lambda live: single_device_activations(live, "at_forward_end") + at_rest + SLACK,
            hint="autograd saves the weights a layer used: with saved_tensors_hooks, save where a view "
            "of the gathered parameter sits instead of the view, and gather again in backward.",
        ),
        LivePromise(
            "gathered:forward",
            "gathered in forward",
            f"the flat parameter gathered once ({gathered:,} bytes)",
            lambda live: gathered + SLACK,
            hint="gather the full flat parameter once per forward.",
        ),
        LivePromise(
            "gathered:backward",
            "gathered in backward",
            f"the flat parameter gathered again once ({gathered:,} bytes)",
            lambda live: gathered + SLACK,
            hint="gather the full flat parameter once for backward, and drop it when the gradient is done.",
        ),
        LivePromise(
            "peak:forward",
            "peak in forward",
            f"a single device's activations, the shard and its state, and the gathered flat parameter "
            f"once ({gathered:,} bytes)",
            lambda live: single_device_activations(live, "forward") + at_rest + gathered + SLACK,
            hint="gather the full flat parameter once per forward and drop it when forward returns.",
        ),
    ]


def assert_sharded_memory(run, case: TrainCase) -> None:
    assert_sharded_trains_like_one_device(run, case)
    lives = {rank: run[rank]["live"] for rank in case.ranks}
    assert_live_promises(lives, sharded_promises(case), f"ShardedDataParallel, {case.n} ranks", case)
