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
from graders.words.messages import say

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
            say("ch4:memory:kept:label"),
            say("ch4:memory:kept", shard=shard),
            lambda live: at_rest + shard + SLACK,
            hint=say("ch4:memory:kept:hint"),
        ),
        LivePromise(
            "at_forward_end",
            say("ch4:memory:at forward end:label"),
            say("ch4:memory:at forward end"),
            lambda live: single_device_activations(live, "at_forward_end") + at_rest + SLACK,
            hint=say("ch4:memory:at forward end:hint"),
        ),
        LivePromise(
            "gathered:forward",
            say("ch4:memory:gathered in forward:label"),
            say("ch4:memory:gathered in forward", gathered=gathered),
            lambda live: gathered + SLACK,
            hint=say("ch4:memory:gathered in forward:hint"),
        ),
        LivePromise(
            "gathered:backward",
            say("ch4:memory:gathered in backward:label"),
            say("ch4:memory:gathered in backward", gathered=gathered),
            lambda live: gathered + SLACK,
            hint=say("ch4:memory:gathered in backward:hint"),
        ),
        LivePromise(
            "peak:forward",
            say("ch4:memory:peak in forward:label"),
            say("ch4:memory:peak in forward", gathered=gathered),
            lambda live: single_device_activations(live, "forward") + at_rest + gathered + SLACK,
            hint=say("ch4:memory:peak in forward:hint"),
        ),
    ]


def assert_sharded_memory(run, case: TrainCase) -> None:
    assert_sharded_trains_like_one_device(run, case)
    lives = {rank: run[rank]["live"] for rank in case.ranks}
    assert_live_promises(lives, sharded_promises(case), say("ch4:memory:title", n=case.n), case)
