"""Chapter 5 communication patterns, read from the trace of every training step.

The tasks mark ``forward_end``, ``backward_end`` and ``step_end`` once per step, so each
step's calls split into forward, backward and ``step()`` (:meth:`Traces.phase`).
"""

from __future__ import annotations

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import TrainCase
from graders.chapters.ch5.checks import assert_trained_like_one_device
from graders.checks import fail
from graders.comm.overlap import describe_late, late_bucket, unreported
from graders.comm.volume import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS, of_family, wire_bytes


def _steps(traces, rank: int, case: TrainCase, *, with_ready: bool = False):
    """Per training step: (forward calls, backward calls, step calls) of ``rank``; with
    ``with_ready``, backward's calls come with the gradient-ready events among them."""
    forward = traces.phase(rank, "forward_end")
    backward = traces.phase(rank, "backward_end", with_ready=with_ready)
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


def _sent_to(events, family) -> int:
    return sum(e.nbytes for e in of_family(events, family))


def _assert_sends_at_least(
    per_rank, case: TrainCase, k: int, family, least: int, what: str, hint: str
) -> None:
    """Each rank hands ``family`` calls at least ``least`` bytes in step ``k`` (``per_rank[rank]``
    are its calls): what every rank must contribute."""
    for rank, events in per_rank.items():
        sent = _sent_to(events, family)
        if sent < least:
            fail(f"rank {rank}, step {k + 1}: {sent:,} bytes {what}; at least {least:,} must go.", case, hint)


def _assert_group_sends_at_least(
    per_rank, case: TrainCase, k: int, family, least: int, what: str, hint: str
) -> None:
    """The ranks together hand ``family`` calls at least ``least`` bytes in step ``k``: every
    element must be sent by the rank that owns it."""
    sent = {rank: _sent_to(events, family) for rank, events in per_rank.items()}
    if sum(sent.values()) < least:
        shares = ", ".join(f"rank {rank}: {got:,}" for rank, got in sent.items())
        fail(
            f"step {k + 1}: the ranks together sent {sum(sent.values()):,} bytes {what} ({shares}); every "
            f"element must be sent by the rank that owns it: at least {least:,}.",
            case,
            hint,
        )


GATHER_HINT = "all-gather every updated shard (all_gather_single) and copy the result into the parameters."
REDUCE_HINT = "every rank hands its whole gradient to the reduction: each rank's chunk needs everyone's."


def _assert_optimizer_stage_sends_enough(run, case: TrainCase, phase_of_reduction: str) -> None:
    """ZeRO-1 and 2, what must be sent every step: each rank's whole gradient into the reduction
    (in ``step()``, or in backward and ``step()``), and every updated element to the all-gather."""
    facts = reference.model_facts()
    grads, trained = facts.bytes_of(facts.gets_grad), facts.bytes_of(facts.trained)
    steps = {rank: _steps(run.traces, rank, case) for rank in case.ranks}
    for k in range(case.steps):
        reductions = {
            rank: (steps[rank][k][1] if phase_of_reduction == "backward" else []) + steps[rank][k][2]
            for rank in case.ranks
        }
        what = "into reduce-scatters or all-reduces of the gradients"
        _assert_sends_at_least(reductions, case, k, REDUCE_SCATTERS + ALL_REDUCES, grads, what, REDUCE_HINT)
        gathers = {rank: steps[rank][k][2] for rank in case.ranks}
        what = "of updated parameters into all-gathers in step()"
        _assert_group_sends_at_least(gathers, case, k, ALL_GATHERS, trained, what, GATHER_HINT)


def assert_zero1_traffic(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    for rank in case.ranks:
        for k, (forward, backward, step) in enumerate(_steps(run.traces, rank, case)):
            _assert_no_all_reduce(
                forward + backward + step,
                rank,
                k,
                case,
                "ZeRO-1",
                "a rank needs only the averaged gradient of the elements it owns: reduce-scatter the "
                "gradients; an all-reduce sends the whole average to every rank.",
            )
            _assert_params_all_gathered(step, rank, k, case, "Zero1Optimizer")
            _assert_wire_at_most(forward + backward + step, rank, k, case, "Zero1Optimizer")
    _assert_optimizer_stage_sends_enough(run, case, "step")


def assert_zero2_traffic(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    layout = reference.buckets(case)
    buckets = f"buckets for bucket_cap_mb={case.bucket_cap_mb}: {reference.describe_buckets(case)}"
    hint = "reduce-scatter a bucket from a post-accumulate-grad hook as soon as its last gradient arrives."
    facts = reference.model_facts()
    members = [[facts.names[i] for i in bucket] for bucket in layout.members]
    names = [frozenset(m) if complete else frozenset() for m, complete in zip(members, layout.complete)]
    with_grad = [name for name, gets in zip(facts.names, facts.gets_grad, strict=True) if gets]
    for rank in case.ranks:
        for k, (forward, timeline, step) in enumerate(_steps(run.traces, rank, case, with_ready=True)):
            backward = [e for e in timeline if not e.is_ready]
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
            silent = unreported(timeline, with_grad)
            if silent:
                fail(
                    f"rank {rank}, step {k + 1}: the graders never saw the gradient of "
                    f"{', '.join(silent)} become ready: their hooks on the parameters were removed.",
                    case,
                    "leave the parameters' hooks alone; register your own next to them.",
                )
            late = late_bucket(timeline, names, REDUCE_SCATTERS)
            if late is not None:
                fail(
                    f"rank {rank}, step {k + 1}: "
                    f"{describe_late(late, members[late.bucket], 'reduce-scatter')}\n{buckets}",
                    case,
                    hint + " Launch it with async_op=True, so backward goes on while it travels.",
                )
            _assert_params_all_gathered(step, rank, k, case, "Zero2Optimizer")
            _assert_wire_at_most(calls, rank, k, case, "Zero2Optimizer")
    _assert_optimizer_stage_sends_enough(run, case, "backward")


def assert_zero3_traffic(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case, last_step_only=True)
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
    _assert_zero3_sends_enough(run, case)


def _assert_zero3_sends_enough(run, case: TrainCase) -> None:
    """ZeRO-3, what must be sent every step: every trained parameter forward reads, gathered in
    forward; every one backward needs again, gathered again in backward; each rank's whole
    gradient reduce-scattered."""
    facts = reference.model_facts()
    trained = facts.trained
    used = facts.bytes_of(tuple(t and u for t, u in zip(trained, facts.used_in_forward, strict=True)))
    saved = facts.bytes_of(tuple(t and s for t, s in zip(trained, facts.saved_for_backward, strict=True)))
    steps = {rank: _steps(run.traces, rank, case) for rank in case.ranks}
    for k in range(case.steps):
        forward = {rank: steps[rank][k][0] for rank in case.ranks}
        backward = {rank: steps[rank][k][1] for rank in case.ranks}
        _assert_group_sends_at_least(
            forward,
            case,
            k,
            ALL_GATHERS,
            used,
            "of shards into all-gathers in forward",
            "gather every layer's parameters just before it runs, from every rank's shard.",
        )
        _assert_group_sends_at_least(
            backward,
            case,
            k,
            ALL_GATHERS,
            saved,
            "of shards into all-gathers in backward",
            "backward needs the weights forward saved: gather them again when autograd unpacks them.",
        )
        _assert_sends_at_least(
            backward,
            case,
            k,
            REDUCE_SCATTERS,
            facts.bytes_of(facts.gets_grad),
            "of gradients into reduce-scatters in backward",
            REDUCE_HINT,
        )
