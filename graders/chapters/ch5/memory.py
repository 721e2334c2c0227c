"""Chapter 5 memory promises: what each rank held, against each stage's 1/N share.

``run[rank]["memory"]`` comes from the worker task (bytes measured by storage, see
:mod:`graders.training.ledger` and :mod:`graders.chapters.ch5.probes`). A failure draws every rank's
params / grads / optimizer-state bars with the stage's limits.
"""

from __future__ import annotations

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import TrainCase
from graders.chapters.ch5.checks import assert_trained_like_one_device, value_of
from graders.checks import fail
from graders.training.ledger import render_bars


def _ledgers(run, case: TrainCase, kind: str) -> dict[int, dict[str, int]]:
    ledgers = {}
    for rank in case.ranks:
        memory = value_of(run, rank, case)["memory"]
        if kind == "zero3":
            ledgers[rank] = {
                "params": memory["params_at_rest"],
                "grads": memory["grads_after_backward"],
                "optimizer state": memory["state_bytes"],
            }
        else:
            grads = memory["grads_after_backward"] + memory["owned_grad_bytes"]
            ledgers[rank] = {
                "params": memory["params"],
                "grads": memory["gradient_memory_after_backward"] if kind == "zero2" else grads,
                "optimizer state": memory["state_bytes"],
            }
    return ledgers


def _memory_failure(message: str, run, case: TrainCase, kind: str, limits: dict, hint: str) -> None:
    title = {"zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3"}[kind]
    picture = render_bars(f"{title}, {case.n} ranks", _ledgers(run, case, kind), limits)
    fail(f"{message}\n{picture}", case, hint)


def _assert_inner_optimizer(run, case: TrainCase, rank: int, name: str) -> dict:
    memory = value_of(run, rank, case)["memory"]
    if memory["instances"] == 0 or memory["steps"] < case.steps:
        fail(
            f"rank {rank}: {name} never stepped an optimizer built with optimizer_cls "
            f"({memory['instances']} built, {memory['steps']} steps for {case.steps} training steps).",
            case,
            "build the inner optimizer as optimizer_cls(owned_tensors, **hparams) and call its step().",
        )
    return memory


def _assert_optimizer_state_partitioned(run, case: TrainCase, kind: str) -> None:
    """ZeRO-1 and 2: each rank's inner optimizer owns and keeps state for ~1/N of the elements."""
    name = {"zero1": "Zero1Optimizer", "zero2": "Zero2Optimizer"}[kind]
    owned_limit = reference.model_facts().shard_elements(case.n)
    state_limit = reference.state_bytes_limit(case)
    limits = {"optimizer state": state_limit}
    for rank in case.ranks:
        memory = _assert_inner_optimizer(run, case, rank, name)
        if memory["owned_elements"] > owned_limit:
            _memory_failure(
                f"rank {rank}: the inner optimizer steps {memory['owned_elements']} elements; with "
                f"{case.n} ranks a rank owns at most {owned_limit} (1/N of every parameter, padded).",
                run,
                case,
                kind,
                limits,
                "give optimizer_cls only this rank's shard, not the model's parameters.",
            )
        if memory["state_bytes"] > state_limit:
            _memory_failure(
                f"rank {rank} holds {memory['state_bytes']} bytes of optimizer state; {name} "
                f"promises at most {state_limit} (the 1/N share of {reference.full_state_bytes(case)} "
                "bytes, plus padding).",
                run,
                case,
                kind,
                limits,
                "the state of the elements another rank owns must not exist on this rank.",
            )


def _assert_gradients_partitioned(run, case: TrainCase) -> None:
    """ZeRO-2: when backward ends a rank holds its reduced chunks, at most one bucket still on
    the wire, and the gradients of the buckets that wait for a missing gradient; nothing more."""
    facts = reference.model_facts()
    layout = reference.buckets(case)
    owned = reference.shard_bytes(case)
    waiting = layout.held_after_backward(facts)
    wire = layout.on_the_wire(case)
    limit = owned + wire + waiting
    limits = {"grads": limit, "optimizer state": reference.state_bytes_limit(case)}
    parts = (
        f"its reduced chunks (≤ {owned}), the bucket still on the wire (≤ {wire}) and the "
        f"buckets waiting for step() ({waiting})"
    )
    for rank in case.ranks:
        memory = value_of(run, rank, case)["memory"]
        if memory["grads_after_backward"] > waiting:
            _memory_failure(
                f"rank {rank}: when backward ended the model's parameters still held "
                f"{memory['grads_after_backward']} bytes of gradients; ZeRO-2 allows {waiting} "
                f"(only buckets with a parameter that gets no gradient wait for step()).\n"
                f"buckets: {reference.describe_buckets(case)}",
                run,
                case,
                "zero2",
                limits,
                "once a bucket is reduce-scattered, set the .grad of its parameters to None: "
                "the rank keeps only the reduced chunk it owns.",
            )
        held = memory["gradient_memory_after_backward"]
        if held > limit:
            _memory_failure(
                f"rank {rank}: when backward ended Zero2Optimizer held {held} "
                f"bytes of gradients (on parameters and in its buffers); ZeRO-2 allows {limit}: {parts}.\n"
                f"buckets: {reference.describe_buckets(case)}",
                run,
                case,
                "zero2",
                limits,
                "wait for the previous bucket when you launch the next one, and drop its buffer: "
                "only the reduced chunk this rank owns is worth keeping.",
            )
        if memory["owned_grad_bytes"] > owned:
            _memory_failure(
                f"rank {rank}: the tensors the inner optimizer steps held {memory['owned_grad_bytes']} "
                f"bytes of gradients at its step; a rank's share is at most {owned}.",
                run,
                case,
                "zero2",
                limits,
                "keep only the reduced chunk of each bucket that this rank owns.",
            )


def _assert_zero3_holds_only_shards(run, case: TrainCase) -> None:
    params_limit = reference.shard_bytes(case, trained_only=False)
    grads_limit = reference.shard_bytes(case)
    state_limit = reference.state_bytes_limit(case)
    limits = {"params": params_limit, "grads": grads_limit, "optimizer state": state_limit}
    checks = (
        (
            "params_at_rest",
            params_limit,
            "between steps it kept {got} bytes of parameters",
            "each rank keeps only its shard of every parameter.",
        ),
        (
            "params_at_forward_end",
            params_limit,
            "when forward ended it still held {got} bytes of parameters",
            "release a layer's gathered parameters right after its forward (and gather them again "
            "in backward).",
        ),
        (
            "grads_after_backward",
            grads_limit,
            "after backward it held {got} bytes of gradients",
            "reduce-scatter each full gradient into the .grad of this rank's shard, and keep no "
            "full gradient.",
        ),
        (
            "state_bytes",
            state_limit,
            "an optimizer over Zero3Module.parameters() held {got} bytes of state",
            "parameters() must yield only this rank's shards.",
        ),
    )
    for rank in case.ranks:
        memory = value_of(run, rank, case)["memory"]
        for key, limit, said, hint in checks:
            if memory[key] > limit:
                _memory_failure(
                    f"rank {rank}: {said.format(got=memory[key])}; ZeRO-3 promises at most {limit} "
                    "(1/N of the model, padded).",
                    run,
                    case,
                    "zero3",
                    limits,
                    hint,
                )


def assert_zero1_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    _assert_optimizer_state_partitioned(run, case, "zero1")


def assert_zero2_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    _assert_gradients_partitioned(run, case)
    _assert_optimizer_state_partitioned(run, case, "zero2")


def assert_zero3_memory(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case, last_step_only=True)
    _assert_zero3_holds_only_shards(run, case)
