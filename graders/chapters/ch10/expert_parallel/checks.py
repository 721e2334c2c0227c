"""Chapter 10 judgements across ranks: expert parallelism, its groups and its gradients.

Expert parallelism is judged on every rank's values against its own single-device layer (each
expert's gradient summed over the ranks), then on its collectives from the trace: in forward,
the split sizes first, then exactly two all-to-alls whose bytes the routing fixes from both
sides (at least the rows that leave the rank, at most every kept row), and in backward the same
two in reverse. The gradient sync is judged on its values, then on the bytes all-reduced in
each group.
"""

from __future__ import annotations

from collections import Counter

import torch

from graders.chapters.ch10 import reference
from graders.chapters.ch10.checks import LAYER_TOLERANCES, _zero_if_none, assert_expert_grads
from graders.chapters.ch10.load_balance import picture
from graders.comm import assertions
from graders.comm.collective_calls import phase_calls
from graders.comm.trace import ALL_REDUCES
from graders.judge.checks import assert_tensor_equal, fail, showing
from graders.words.messages import say

ALL_TO_ALLS = frozenset({"all_to_all", "all_to_all_single"})
COUNT_BYTES = 8  # an int64 split size per expert
SMALL_TALK = 64  # bytes of other small numbers a direction may exchange beyond its rows


def _local(case, i: int) -> range:
    return range(i * case.experts_per_rank, (i + 1) * case.experts_per_rank)


def load_picture(case, want):
    dispatches = [values["dispatch"] for values in want]
    chosen = [t * case.k for t in case.tokens]
    return picture(dispatches, chosen, [f"rank {r}" for r in case.ranks])


def assert_holds_its_experts_only(run, case) -> None:
    """The module's parameters are the router's and this rank's experts', nothing more."""
    per_expert = 2 * case.hidden * case.ffn_hidden + case.hidden + case.ffn_hidden
    want = case.num_experts * case.hidden + case.experts_per_rank * per_expert
    for rank in case.ranks:
        held = run[rank]["parameters_held"]
        if held != want:
            said = {"rank": rank, "held": held, "want": want, "per_expert": per_expert}
            fail(say("ch10:parameters held", **said), case, say("ch10:local experts:hint"))


def assert_expert_parallel(run, case, *, poisoned: bool = False) -> list[dict]:
    """Every rank's values; returns the reference's (per group rank), for the checks after it."""
    want = reference.expert_parallel_values(case)
    hint = say("ch10:local experts:hint") if poisoned else say("ch10:expert parallel:hint")
    with showing(load_picture(case, want)):
        for i, rank in enumerate(case.ranks):
            got, mine = run[rank], want[i]
            if got["experts_held"] != case.experts_per_rank:
                said = {"rank": rank, "held": got["experts_held"], "per": case.experts_per_rank}
                fail(say("ch10:experts held", **said), case, say("ch10:experts held:hint"))
            if got["skipped"]:
                fail(
                    say("ch10:no backward", rank=rank, why=got["skipped"]), case, say("ch10:no backward:hint")
                )
            if poisoned:
                _assert_finite(got, rank, case, hint)
            what = say("ch10:rank output", rank=rank)
            assert_tensor_equal(
                got["output"], mine["output"], what=what, case=case, hint=hint, tolerances=LAYER_TOLERANCES
            )
            what = say("ch10:rank tokens grad", rank=rank)
            assert_tensor_equal(
                got["input_grad"],
                mine["input_grad"],
                what=what,
                case=case,
                hint=hint,
                tolerances=LAYER_TOLERANCES,
            )
            what = say("ch10:rank router grad", rank=rank)
            assert_tensor_equal(
                _zero_if_none(got["router_grad"], mine["router_grad"]),
                mine["router_grad"],
                what=what,
                case=case,
                hint=say("ch10:router replicated:hint"),
                tolerances=LAYER_TOLERANCES,
            )
            summed = say("ch10:summed expert grad:hint")
            assert_expert_grads(
                got["expert_grads"], mine["summed_expert_grads"], _local(case, i), case, summed, rank=rank
            )
    return want


def _assert_finite(got, rank: int, case, hint) -> None:
    tensors = [got["output"], got["input_grad"]] + [t for grads in got["expert_grads"] or [] for t in grads]
    for tensor in tensors:
        if (
            isinstance(tensor, torch.Tensor)
            and tensor.is_floating_point()
            and not bool(tensor.isfinite().all())
        ):
            fail(say("ch10:touched remote expert", rank=rank), case, hint)


# -- traffic ---------------------------------------------------------------------------------------------


def routed_rows(case, want: list[dict]) -> list[dict]:
    """Per group rank: rows kept, kept for its own experts, and received for its experts, from the
    reference's routing (``want``, as :func:`assert_expert_parallel` returns it)."""
    counts = [values["dispatch"].sum(dim=(0, 2)).tolist() for values in want]
    rows = []
    for i in range(case.n):
        local = _local(case, i)
        rows.append(
            {
                "kept": sum(counts[i]),
                "home": sum(counts[i][e] for e in local),
                "received": sum(counts[j][e] for j in range(case.n) for e in local),
            }
        )
    return rows


def assert_within_the_routed_bytes(run, case, want: list[dict]) -> None:
    """Each direction hands its collectives at most the routed rows and some small numbers (the
    split sizes twice over, and :data:`SMALL_TALK`): weights gathered from other ranks do not fit.
    The traffic part checks the calls themselves."""
    row_bytes = case.hidden * case.xs[0].element_size()
    small = 2 * COUNT_BYTES * case.num_experts + SMALL_TALK
    for rank, rows in zip(case.ranks, routed_rows(case, want), strict=True):
        limit = small + (rows["kept"] + rows["received"]) * row_bytes
        for label in ("forward_end", "backward_end"):
            events = phase_calls(run.traces, rank, label)
            sent = sum(e.nbytes for e in events)
            if sent > limit:
                said = {"rank": rank, "sent": sent, "limit": limit, "got": _shown(events)}
                message = say("ch10:more than the rows", **said)
                assertions.fail(run.traces, message, case, say("ch10:local experts:hint"))


def _shown(events) -> str:
    return ", ".join(f"{e.op} of {e.nbytes} B" for e in events) or "none"


def _in_range(nbytes: int, low_rows: int, high_rows: int, row_bytes: int) -> bool:
    return low_rows * row_bytes <= nbytes <= high_rows * row_bytes


def assert_expert_parallel_traffic(run, case) -> None:
    """Judged on the poisoned run: a rank that sends the right bytes but computes with copies of
    other ranks' experts does not pass."""
    want = assert_expert_parallel(run, case, poisoned=True)
    row_bytes = case.hidden * case.xs[0].element_size()
    group = tuple(case.ranks)
    for rank, rows in zip(case.ranks, routed_rows(case, want), strict=True):
        out = (rows["kept"] - rows["home"], rows["kept"])  # rows this rank sends its experts' way
        back = (rows["received"] - rows["home"], rows["received"])  # rows its experts send back
        limits = {"rank": rank, "row_bytes": row_bytes, "counts": COUNT_BYTES * case.num_experts}
        for label in ("forward_end", "backward_end"):  # backward: the same two, reversed
            events = phase_calls(run.traces, rank, label)
            said = {**limits, "got": _shown(events), "out": out, "back": back}
            strange = [e for e in events if e.is_p2p or tuple(e.group) != group]
            data = [e for e in events if e.op in ALL_TO_ALLS][-2:]
            sizes = events[: len(events) - len(data)]
            ok = not strange and len(data) == 2 and events[-2:] == data
            ok = (
                ok
                and _in_range(data[0].nbytes, *out, row_bytes)
                and _in_range(data[1].nbytes, *back, row_bytes)
            )
            if label == "forward_end":
                ok = ok and 0 < sum(e.nbytes for e in sizes) <= COUNT_BYTES * case.num_experts
                if not ok:
                    message, hint = say("ch10:forward traffic", **said), say("ch10:forward traffic:hint")
                    assertions.fail(run.traces, message, case, hint)
            elif not ok or sizes:
                message, hint = say("ch10:backward traffic", **said), say("ch10:backward traffic:hint")
                assertions.fail(run.traces, message, case, hint)


# -- the groups and the gradients ----------------------------------------------------------------


def assert_groups(run, case) -> None:
    hint = say("ch10:groups:hint")
    if not case.valid:
        if "value_error" not in run:
            fail(
                say("ch10:groups invalid", got=repr(run.get("groups"))), case, say("ch10:groups invalid:hint")
            )
        return
    if "value_error" in run:
        fail(say("ch10:groups raised", error=run["value_error"]), case, hint)
    want = reference.groups(case.world, case.ep, case.dp)
    if run["groups"] != want:
        fail(say("ch10:groups wrong", expected=want, got=run["groups"]), case, hint)


def assert_synced(run, case) -> None:
    want = reference.synced(case)
    for i, rank in enumerate(case.ranks):
        got = run[rank]
        what = say("ch10:rank router grad", rank=rank)
        assert_tensor_equal(
            got["router"], want[i]["router"], what=what, case=case, hint=say("ch10:dense sync:hint")
        )
        for j in range(case.experts_per_rank):
            for p, name in enumerate(("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")):
                what = say("ch10:local expert grad", rank=rank, j=j, name=name)
                assert_tensor_equal(
                    got["experts"][j][p],
                    want[i]["experts"][j][p],
                    what=what,
                    case=case,
                    hint=say("ch10:expert sync:hint"),
                )


def _expected_bytes(case, i: int) -> Counter:
    size = case.router_grads[0].element_size()
    router = case.router_grads[0].numel() * size
    experts = sum(t.numel() for grads in case.expert_grads[0] for t in grads) * size
    expected = Counter({tuple(case.ranks): router})
    expected[case.expert_group(i)] += experts
    return expected


def assert_sync_traffic(run, case) -> None:
    assert_synced(run, case)
    for i, rank in enumerate(case.ranks):
        events = phase_calls(run.traces, rank, "sync_end")
        got = Counter()
        for e in events:
            got[tuple(e.group)] += e.nbytes
        want = _expected_bytes(case, i)
        not_reduce = [e for e in events if e.is_p2p or e.op not in ALL_REDUCES]
        # a group of one rank has nobody to talk to: its all-reduce may be skipped
        skippable = {g for g in want if len(g) == 1}
        same = all(got.get(g, 0) == n or (g in skippable and got.get(g, 0) == 0) for g, n in want.items())
        if not_reduce or not same or set(got) - set(want):
            said = {
                "rank": rank,
                "expected": _groups_shown(want),
                "got": _groups_shown(got),
                "calls": _shown(events),
            }
            if not_reduce:  # the operation is what differs: say it first, then the bytes
                ops = ", ".join(sorted({e.op for e in not_reduce}))
                message = say("ch10:sync not all-reduce", ops=ops, **said)
            else:
                message = say("ch10:sync traffic", **said)
            assertions.fail(run.traces, message, case, say("ch10:sync traffic:hint"))


def _groups_shown(per_group: Counter) -> str:
    return "; ".join(f"{n} B over ranks {list(g)}" for g, n in sorted(per_group.items())) or "none"
