"""Chapter 5 judgements: training results, each stage's memory promise, its traffic pattern.

Every failure names the rank and the example, and memory failures draw the per-rank picture
(params, grads, optimizer state, with the stage's limits).
"""

from __future__ import annotations

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import TrainCase
from graders.checks import fail
from graders.comm.volume import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS, of_family, wire_bytes
from graders.ledger import render_bars
from graders.training import assert_history_close

NO_GRAD_HINT = (
    "A parameter that gets no gradient may be skipped or stepped with a zero gradient, but "
    "frozen parameters (requires_grad=False) are never updated, and a tied weight is one parameter."
)


def train(world, task, impl, case):
    """Compute the reference, then run ``task`` on every rank. Reference first: the driver's first
    optimizer imports torch._dynamo (seconds), which then overlaps with the worlds starting."""
    if isinstance(case, TrainCase):
        reference.histories(case)
    else:
        reference.mixed_precision(case)
    return world.run(task, impl, case)


def _value(run, rank: int, case):
    value = run[rank]
    if not isinstance(value, dict):
        fail(f"rank {rank} returned nothing to grade.", case)
    return value


def assert_trained_like_one_device(run, case: TrainCase, hint: str, *, last_step_only: bool = False) -> None:
    """Every group rank ends each step (or the last) with the parameters of one device."""
    skip, zero = reference.histories(case)
    if last_step_only:
        skip, zero = skip[-1:], zero[-1:]
    for rank in case.ranks:
        assert_history_close(
            _value(run, rank, case)["history"],
            skip,
            who=f"rank {rank}",
            case=case,
            hint=hint,
            also=zero,
            first_step=case.steps if last_step_only else 1,
        )


# -- memory ------------------------------------------------------------------------------------


def _ledgers(run, case: TrainCase, kind: str) -> dict[int, dict[str, int]]:
    ledgers = {}
    for rank in case.ranks:
        memory = _value(run, rank, case)["memory"]
        if kind == "zero3":
            ledgers[rank] = {
                "params": memory["params_at_rest"],
                "grads": memory["grads_after_backward"],
                "optimizer state": memory["state_bytes"],
            }
        else:
            ledgers[rank] = {
                "params": memory["params"],
                "grads": memory["grads_after_backward"] + memory["owned_grad_bytes"],
                "optimizer state": memory["state_bytes"],
            }
    return ledgers


def _memory_failure(message: str, run, case: TrainCase, kind: str, limits: dict, hint: str) -> None:
    title = {"zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3"}[kind]
    picture = render_bars(f"{title}, {case.n} ranks", _ledgers(run, case, kind), limits)
    fail(f"{message}\n{picture}", case, hint)


def _assert_inner_optimizer(run, case: TrainCase, rank: int, name: str) -> dict:
    memory = _value(run, rank, case)["memory"]
    if memory["instances"] == 0 or memory["steps"] < case.steps:
        fail(
            f"rank {rank}: {name} never stepped an optimizer built with optimizer_cls "
            f"({memory['instances']} built, {memory['steps']} steps for {case.steps} training steps).",
            case,
            "build the inner optimizer as optimizer_cls(owned_tensors, **hparams) and call its step().",
        )
    return memory


def assert_optimizer_state_partitioned(run, case: TrainCase, kind: str) -> None:
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


def assert_gradients_partitioned(run, case: TrainCase) -> None:
    """ZeRO-2: when backward ends, only incomplete buckets still hold full gradients, and the
    reduced gradient a rank keeps is its 1/N share."""
    facts = reference.model_facts()
    layout = reference.buckets(case)
    held_limit = layout.held_after_backward(facts)
    owned_limit = reference.shard_bytes(case)
    limits = {"grads": held_limit + owned_limit, "optimizer state": reference.state_bytes_limit(case)}
    for rank in case.ranks:
        memory = _value(run, rank, case)["memory"]
        if memory["grads_after_backward"] > held_limit:
            _memory_failure(
                f"rank {rank}: when backward ended the model's parameters still held "
                f"{memory['grads_after_backward']} bytes of gradients; ZeRO-2 allows {held_limit} "
                f"(only buckets with a parameter that gets no gradient wait for step()).\n"
                f"buckets: {reference.describe_buckets(case)}",
                run,
                case,
                "zero2",
                limits,
                "once a bucket is reduce-scattered, set the .grad of its parameters to None: "
                "the rank keeps only the reduced chunk it owns.",
            )
        if memory["owned_grad_bytes"] > owned_limit:
            _memory_failure(
                f"rank {rank}: the tensors the inner optimizer steps held {memory['owned_grad_bytes']} "
                f"bytes of gradients at its step; a rank's share is at most {owned_limit}.",
                run,
                case,
                "zero2",
                limits,
                "keep only the reduced chunk of each bucket that this rank owns.",
            )


def assert_zero3_memory(run, case: TrainCase) -> None:
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
        memory = _value(run, rank, case)["memory"]
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


# -- traffic -----------------------------------------------------------------------------------


def _steps(traces, rank: int, case: TrainCase):
    """Per training step: (forward calls, backward calls, step calls) of ``rank``."""
    forward = traces.phase(rank, "forward_end")
    backward = traces.phase(rank, "backward_end")
    step = traces.phase(rank, "step_end")
    if not (len(forward) == len(backward) == len(step) == case.steps):
        fail(f"rank {rank}: the training loop did not complete {case.steps} steps.", case)
    return list(zip(forward, backward, step, strict=True))


def _where(events) -> str:
    sites = sorted({e.site for e in events if e.site})
    return f" (at {', '.join(sites[:2])})" if sites else ""


def _assert_no_all_reduce(events, rank, k, case, stage, hint) -> None:
    reduces = of_family(events, ALL_REDUCES)
    if reduces:
        fail(
            f"rank {rank}, step {k + 1}: {len(reduces)} all-reduce(s) of {sum(e.nbytes for e in reduces)} "
            f"bytes{_where(reduces)}; {stage} never all-reduces the gradients.",
            case,
            hint,
        )


def _assert_params_all_gathered(step_calls, rank, k, case, name) -> None:
    if not of_family(step_calls, ALL_GATHERS):
        fail(
            f"rank {rank}, step {k + 1}: {name}.step() issued no all-gather; every rank must get the "
            "other ranks' updated shards back.",
            case,
            "all-gather the updated shards (all_gather_single) and copy them into the parameters.",
        )


def _assert_wire_at_most(calls, rank, k, case, name) -> None:
    sent, limit = wire_bytes(calls), reference.wire_bytes_limit(case)
    if sent > limit + 0.5:
        kinds = ", ".join(sorted({e.op for e in calls}))
        fail(
            f"rank {rank}, step {k + 1}: {name} sent {sent:,.0f} bytes ({kinds}); a reduce-scatter "
            f"of the gradients plus an all-gather of the parameters sends {limit:,.0f}, the same as "
            "data parallelism's all-reduce.",
            case,
            "each rank needs only the averaged gradient of its own shard: reduce-scatter it instead "
            "of all-reducing the whole gradient.",
        )


def assert_zero1_traffic(run, case: TrainCase) -> None:
    for rank in case.ranks:
        for k, (forward, backward, step) in enumerate(_steps(run.traces, rank, case)):
            _assert_params_all_gathered(step, rank, k, case, "Zero1Optimizer")
            _assert_wire_at_most(forward + backward + step, rank, k, case, "Zero1Optimizer")


def assert_zero2_traffic(run, case: TrainCase) -> None:
    layout = reference.buckets(case)
    buckets = f"buckets for bucket_cap_mb={case.bucket_cap_mb}: {reference.describe_buckets(case)}"
    hint = "reduce-scatter a bucket from a post-accumulate-grad hook as soon as its last gradient arrives."
    for rank in case.ranks:
        for k, (forward, backward, step) in enumerate(_steps(run.traces, rank, case)):
            calls = forward + backward + step
            _assert_no_all_reduce(
                calls,
                rank,
                k,
                case,
                "ZeRO-2",
                "an all-reduce leaves the whole gradient on every rank; reduce-scatter leaves each rank "
                "only the chunk it owns, which is what stage 2 saves.",
            )
            during = len(of_family(backward, REDUCE_SCATTERS))
            after = len(of_family(step, REDUCE_SCATTERS))
            if during != layout.during_backward or after != layout.in_step:
                fail(
                    f"rank {rank}, step {k + 1}: {during} reduce-scatter(s) during backward and {after} "
                    f"in step(); expected one per bucket: {layout.during_backward} during backward "
                    f"and {layout.in_step} in step() (for buckets that miss a gradient).\n{buckets}",
                    case,
                    hint,
                )
            for position, (event, b) in enumerate(
                zip(of_family(backward, REDUCE_SCATTERS), layout.completion, strict=True)
            ):
                least, most = reference.reduce_scatter_bytes(case, layout.members[b])
                if not least <= event.nbytes <= most:
                    fail(
                        f"rank {rank}, step {k + 1}: reduce-scatter {position + 1} during backward took "
                        f"{event.nbytes} bytes{_where([event])}; the bucket backward completes "
                        f"{'first' if position == 0 else f'in position {position + 1}'} holds {least} "
                        f"bytes of gradients (at most {most} with padding).\n{buckets}",
                        case,
                        "buckets are fixed at construction, in reverse parameter order; reduce each one "
                        "as soon as its last gradient arrives.",
                    )
            _assert_params_all_gathered(step, rank, k, case, "Zero2Optimizer")
            _assert_wire_at_most(calls, rank, k, case, "Zero2Optimizer")


def assert_zero3_traffic(run, case: TrainCase) -> None:
    largest = reference.largest_unit_shard_bytes(case)
    for rank in case.ranks:
        for k, (forward, backward, step) in enumerate(_steps(run.traces, rank, case)):
            _assert_no_all_reduce(
                forward + backward + step,
                rank,
                k,
                case,
                "ZeRO-3",
                "reduce-scatter each gradient into the shards; an all-reduce keeps full gradients.",
            )
            gathers = of_family(forward, ALL_GATHERS)
            if len(gathers) < 2:
                fail(
                    f"rank {rank}, step {k + 1}: {len(gathers)} all-gather(s) in forward; ZeRO-3 gathers "
                    "each layer's parameters just before that layer runs.",
                    case,
                    "gather in a forward pre-hook of every submodule that owns parameters.",
                )
            too_big = [e for e in gathers if e.nbytes > largest]
            if too_big:
                fail(
                    f"rank {rank}, step {k + 1}: an all-gather in forward contributed {too_big[0].nbytes} "
                    f"bytes{_where(too_big)}, more than this rank's shard of the largest layer "
                    f"({largest}): the whole model was gathered at once.",
                    case,
                    "gather layer by layer, so that only one layer is ever complete in memory.",
                )
            if of_family(forward, REDUCE_SCATTERS):
                fail(f"rank {rank}, step {k + 1}: a reduce-scatter ran during forward.", case)
            if not of_family(backward, ALL_GATHERS):
                fail(
                    f"rank {rank}, step {k + 1}: no all-gather during backward. ZeRO-3 frees a layer's "
                    "parameters after its forward and gathers them again when backward needs them.",
                    case,
                    "torch.autograd.graph.saved_tensors_hooks can swap a saved parameter for a key in "
                    "forward and gather it again when backward unpacks it.",
                )
            if not of_family(backward, REDUCE_SCATTERS):
                fail(
                    f"rank {rank}, step {k + 1}: no reduce-scatter during backward; the gradients of "
                    "the gathered parameters must be reduce-scattered into the shards.",
                    case,
                )


# -- cross-check with torch's ZeroRedundancyOptimizer ------------------------------------------


def assert_matches_torch_zero(run, case: TrainCase) -> None:
    facts = reference.model_facts()
    with_grad = {facts.names[i] for i in range(len(facts.names)) if facts.gets_grad[i]}

    def keep(history):
        if not isinstance(history, list):
            return history
        return [
            {n: t for n, t in step.items() if n in with_grad} if isinstance(step, dict) else step
            for step in history
        ]

    for rank in case.ranks:
        value = _value(run, rank, case)
        assert_history_close(
            keep(value["history"]),
            keep(value["torch"]["history"]),
            who=f"rank {rank}, your Zero1Optimizer vs torch's ZeroRedundancyOptimizer",
            case=case,
            hint="both start from the same model and average the same gradients.",
        )
    ours = sum(run[r]["memory"]["state_bytes"] for r in case.ranks)
    theirs = sum(run[r]["torch"]["state_bytes"] for r in case.ranks)
    padding = case.n * facts.shard_elements(case.n) - facts.trained_elements()
    no_grad = sum(facts.numels[i] for i in facts.indices(trained_only=True) if not facts.gets_grad[i])
    tensors = len(facts.indices(trained_only=True))
    allowance = reference.states_per_element(case.optimizer) * (padding + no_grad) * facts.itemsize
    allowance += reference.STEP_BYTES * tensors * case.n
    if ours > theirs + allowance:
        ledgers = {
            r: {
                "your state": run[r]["memory"]["state_bytes"],
                "torch's state": run[r]["torch"]["state_bytes"],
            }
            for r in case.ranks
        }
        fail(
            f"over all ranks your Zero1Optimizer holds {ours} bytes of optimizer state; torch's "
            f"ZeroRedundancyOptimizer holds {theirs} (yours may exceed it by {allowance} for padding "
            "and parameters without gradient). Some state is replicated across ranks.\n"
            + render_bars(f"optimizer state, {case.n} ranks", ledgers),
            case,
            "each element's optimizer state lives on exactly one rank.",
        )


# -- ZeRO-Offload ------------------------------------------------------------------------------


def assert_offload_result(run, case) -> None:
    """The bf16 model and the fp32 masters follow mixed-precision training with the same casts."""
    model_history, master_history = reference.mixed_precision(case)
    zero_models, zero_masters = reference.mixed_precision(case, zero_missing_grads=True)
    value = _value(run, 0, case)
    hint = (
        "master = param.float() once; each step master.grad = param.grad.float(), step on the "
        "masters, then param.copy_(master)."
    )
    names = reference.trained_names()
    masters = value["masters"]
    for k, got in enumerate(masters):
        if not isinstance(got, list) or len(got) != len(names):
            fail(
                f"after step {k + 1}: the inner optimizer steps {len(got)} tensor(s); expected one fp32 "
                f"master per trained parameter ({len(names)}: {', '.join(names)}), in order.",
                case,
                hint,
            )
    as_named = [dict(zip(names, step, strict=True)) for step in masters]
    as_expected = [dict(zip(names, step, strict=True)) for step in master_history]
    also = [dict(zip(names, step, strict=True)) for step in zero_masters]
    assert_history_close(as_named, as_expected, who="the fp32 masters", case=case, hint=hint, also=also)
    assert_history_close(
        value["history"], model_history, who="the bf16 model", case=case, hint=hint, also=zero_models
    )


def assert_offload_placement(run, case) -> None:
    facts = _value(run, 0, case)["placement"]
    hint = "the host store holds fp32 copies; the device model stays bf16 and is updated in place."
    if facts["instances"] == 0 or facts["inner_steps"] < case.steps:
        fail(
            f"the optimizer built with optimizer_cls stepped {facts['inner_steps']} time(s) in "
            f"{case.steps} training steps: the step must run in it, on the masters.",
            case,
            hint,
        )
    names = reference.trained_names()
    if len(facts["masters"]) != len(names):
        fail(
            f"the inner optimizer steps {len(facts['masters'])} tensors; expected one master per trained "
            f"parameter ({len(names)}).",
            case,
            hint,
        )
    for name, master in zip(names, facts["masters"], strict=True):
        where = f"the master of {name!r}"
        if master["dtype"] != "float32":
            fail(f"{where} is {master['dtype']}; master weights are float32.", case, hint)
        if master["device"] != "cpu":
            fail(f"{where} lives on {master['device']}; the host store is the CPU.", case, hint)
        if master["shares_model_memory"]:
            fail(f"{where} shares memory with the model's parameter: it must be a copy.", case, hint)
    for state in facts["state"]:
        if state["dtype"] != "float32" or state["device"] != "cpu":
            fail(
                f"optimizer state of dtype {state['dtype']} on {state['device']}: the state of fp32 "
                "masters is fp32 on the host.",
                case,
                hint,
            )
    for name, dtype, in_place in zip(names, facts["model_dtypes"], facts["model_in_place"], strict=True):
        if dtype != "bfloat16":
            fail(
                f"the model's parameter {name!r} became {dtype}; the device model stays bfloat16.", case, hint
            )
        if not in_place:
            fail(
                f"the model's parameter {name!r} now lives in new memory; copy the master into it in "
                "place (param.copy_(master)) so the device keeps its own buffers.",
                case,
                hint,
            )
