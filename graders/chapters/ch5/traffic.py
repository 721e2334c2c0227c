"""Chapter 5 communication patterns, read from the trace of every training step.

The tasks mark ``forward_end``, ``backward_end`` and ``step_end`` once per step, so each
step's calls split into forward, backward and ``step()`` (:meth:`Traces.phase`).
"""

from __future__ import annotations

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import TrainCase
from graders.chapters.ch5.checks import assert_trained_like_one_device
from graders.comm.overlap import describe_late, late_bucket, unreported
from graders.comm.volume import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS, of_family, wire_bytes
from graders.judge.checks import fail
from graders.words.messages import say
from graders.words.numbers import format_number
from graders.words.text import Text, each_lang


def _steps(traces, rank: int, case: TrainCase, *, with_ready: bool = False):
    """Per training step: (forward calls, backward calls, step calls) of ``rank``; with
    ``with_ready``, backward's calls come with the gradient-ready events among them."""
    forward = traces.phase(rank, "forward_end")
    backward = traces.phase(rank, "backward_end", with_ready=with_ready)
    step = traces.phase(rank, "step_end")
    if not (len(forward) == len(backward) == len(step) == case.steps):
        fail(say("ch5:steps incomplete", rank=rank, steps=case.steps), case)
    return list(zip(forward, backward, step, strict=True))


def _where(events) -> Text | str:
    sites = sorted({e.site for e in events if e.site})
    return say("ch5:at sites", sites=", ".join(sites[:2])) if sites else ""


def _assert_no_all_reduce(events, rank, k, case, stage, hint) -> None:
    reduces = of_family(events, ALL_REDUCES)
    if reduces:
        nbytes = sum(e.nbytes for e in reduces)
        said = {
            "rank": rank,
            "step": k + 1,
            "count": len(reduces),
            "nbytes": nbytes,
            "where": _where(reduces),
        }
        fail(say("ch5:all-reduce", **said, stage=stage), case, hint)


def _assert_params_all_gathered(step_calls, rank, k, case, name) -> None:
    if not of_family(step_calls, ALL_GATHERS):
        fail(
            say("ch5:no all-gather in step", rank=rank, step=k + 1, name=name),
            case,
            say("ch5:no all-gather in step:hint"),
        )


def _assert_wire_at_most(calls, rank, k, case, name) -> None:
    sent, limit = wire_bytes(calls), reference.wire_bytes_limit(case)
    if sent > limit + 0.5:
        kinds = ", ".join(sorted({e.op for e in calls}))
        said = {"rank": rank, "step": k + 1, "name": name, "sent": sent, "kinds": kinds, "limit": limit}
        fail(say("ch5:wire", **said), case, say("ch5:wire:hint"))


def _sent_to(events, family) -> int:
    return sum(e.nbytes for e in of_family(events, family))


def _assert_sends_at_least(
    per_rank, case: TrainCase, k: int, family, least: int, what: Text, hint: Text
) -> None:
    """Each rank hands ``family`` calls at least ``least`` bytes in step ``k`` (``per_rank[rank]``
    are its calls): what every rank must contribute."""
    for rank, events in per_rank.items():
        sent = _sent_to(events, family)
        if sent < least:
            said = {"rank": rank, "step": k + 1, "sent": sent, "what": what, "least": least}
            fail(say("ch5:sent too little", **said), case, hint)


def _assert_group_sends_at_least(
    per_rank, case: TrainCase, k: int, family, least: int, what: Text, hint: Text
) -> None:
    """The ranks together hand ``family`` calls at least ``least`` bytes in step ``k``: every
    element must be sent by the rank that owns it."""
    sent = {rank: _sent_to(events, family) for rank, events in per_rank.items()}
    if sum(sent.values()) < least:
        shares = each_lang(
            lambda lang: ", ".join(
                f"rank {rank}: {format_number(got, ',', lang)}" for rank, got in sent.items()
            )
        )
        said = {"step": k + 1, "total": sum(sent.values()), "what": what, "shares": shares, "least": least}
        fail(say("ch5:group sent too little", **said), case, hint)


def _assert_optimizer_stage_sends_enough(run, case: TrainCase, phase_of_reduction: str) -> None:
    """ZeRO-1 and 2, what must be sent every step: each rank's whole gradient into the reduction
    (in ``step()``, or in backward and ``step()``), and every updated element to the all-gather."""
    facts = reference.model_facts(case.config)
    grads, trained = facts.bytes_of(facts.gets_grad), facts.bytes_of(facts.trained)
    steps = {rank: _steps(run.traces, rank, case) for rank in case.ranks}
    for k in range(case.steps):
        reductions = {
            rank: (steps[rank][k][1] if phase_of_reduction == "backward" else []) + steps[rank][k][2]
            for rank in case.ranks
        }
        what, hint = say("ch5:sent:gradients into reductions"), say("ch5:reduce:hint")
        _assert_sends_at_least(reductions, case, k, REDUCE_SCATTERS + ALL_REDUCES, grads, what, hint)
        gathers = {rank: steps[rank][k][2] for rank in case.ranks}
        what, hint = say("ch5:sent:parameters into all-gathers"), say("ch5:gather:hint")
        _assert_group_sends_at_least(gathers, case, k, ALL_GATHERS, trained, what, hint)


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
                say("ch5:all-reduce:zero1:hint"),
            )
            _assert_params_all_gathered(step, rank, k, case, "Zero1Optimizer")
            _assert_wire_at_most(forward + backward + step, rank, k, case, "Zero1Optimizer")
    _assert_optimizer_stage_sends_enough(run, case, "step")


def assert_zero2_traffic(run, case: TrainCase) -> None:
    assert_trained_like_one_device(run, case)
    layout = reference.buckets(case)
    # bucket_cap_mb=... is Python, in every language: the number as Python writes it
    cap = repr(case.bucket_cap_mb)
    buckets = say("ch5:zero2:buckets", cap=cap, layout=reference.describe_buckets(case))
    hint = say("ch5:zero2:hint")
    facts = reference.model_facts(case.config)
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
                say("ch5:all-reduce:zero2:hint"),
            )
            during = len(of_family(backward, REDUCE_SCATTERS))
            after = len(of_family(step, REDUCE_SCATTERS))
            if during != layout.during_backward or after != layout.in_step:
                said = {"rank": rank, "step": k + 1, "during": during, "after": after, "buckets": buckets}
                expected = {"in_backward": layout.during_backward, "in_step": layout.in_step}
                fail(say("ch5:zero2:reduce-scatter count", **said, **expected), case, hint)
            for position, (event, b) in enumerate(
                zip(of_family(backward, REDUCE_SCATTERS), layout.completion, strict=True)
            ):
                least, most = reference.reduce_scatter_bytes(case, layout.members[b])
                if not least <= event.nbytes <= most:
                    which = (
                        say("ch5:zero2:reduce-scatter size:first")
                        if position == 0
                        else say("ch5:zero2:reduce-scatter size:nth", position=position + 1)
                    )
                    said = {"rank": rank, "step": k + 1, "position": position + 1, "nbytes": event.nbytes}
                    bounds = {"least": least, "most": most, "buckets": buckets}
                    fail(
                        say(
                            "ch5:zero2:reduce-scatter size",
                            **said,
                            where=_where([event]),
                            which=which,
                            **bounds,
                        ),
                        case,
                        say("ch5:zero2:reduce-scatter size:hint"),
                    )
            silent = unreported(timeline, with_grad)
            if silent:
                fail(
                    say("ch5:hooks removed", rank=rank, step=k + 1, names=", ".join(silent)),
                    case,
                    say("ch5:hooks removed:hint"),
                )
            late = late_bucket(timeline, names, REDUCE_SCATTERS)
            if late is not None:
                late_one = describe_late(late, members[late.bucket], "reduce-scatter")
                fail(
                    say("ch5:zero2:late bucket", rank=rank, step=k + 1, late=late_one, buckets=buckets),
                    case,
                    hint + " " + say("ch5:zero2:late bucket:hint"),
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
                say("ch5:all-reduce:zero3:hint"),
            )
            gathers = of_family(forward, ALL_GATHERS)
            if len(gathers) < 2:
                fail(
                    say("ch5:zero3:all-gathers in forward", rank=rank, step=k + 1, count=len(gathers)),
                    case,
                    say("ch5:zero3:all-gathers in forward:hint"),
                )
            too_big = [e for e in gathers if e.nbytes > largest]
            if too_big:
                said = {"rank": rank, "step": k + 1, "nbytes": too_big[0].nbytes, "where": _where(too_big)}
                fail(
                    say("ch5:zero3:whole model gathered", **said, largest=largest),
                    case,
                    say("ch5:zero3:whole model gathered:hint"),
                )
            if of_family(forward, REDUCE_SCATTERS):
                fail(say("ch5:zero3:reduce-scatter in forward", rank=rank, step=k + 1), case)
            if not of_family(backward, ALL_GATHERS):
                fail(
                    say("ch5:zero3:no all-gather in backward", rank=rank, step=k + 1),
                    case,
                    say("ch5:zero3:no all-gather in backward:hint"),
                )
            if not of_family(backward, REDUCE_SCATTERS):
                fail(say("ch5:zero3:no reduce-scatter in backward", rank=rank, step=k + 1), case)
    _assert_zero3_sends_enough(run, case)


def _assert_zero3_sends_enough(run, case: TrainCase) -> None:
    """ZeRO-3, what must be sent every step: every trained parameter forward reads, gathered in
    forward; every one backward needs again, gathered again in backward; each rank's whole
    gradient reduce-scattered."""
    facts = reference.model_facts(case.config)
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
            say("ch5:sent:shards in forward"),
            say("ch5:zero3:forward gathers:hint"),
        )
        _assert_group_sends_at_least(
            backward,
            case,
            k,
            ALL_GATHERS,
            saved,
            say("ch5:sent:shards in backward"),
            say("ch5:zero3:backward gathers:hint"),
        )
        _assert_sends_at_least(
            backward,
            case,
            k,
            REDUCE_SCATTERS,
            facts.bytes_of(facts.gets_grad),
            say("ch5:sent:gradients into reduce-scatters"),
            say("ch5:reduce:hint"),
        )
