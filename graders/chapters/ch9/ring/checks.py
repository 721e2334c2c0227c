"""Chapter 9 judgements on Ring Attention and the zigzag layout.

Ring Attention: every rank's output (result) and gradients (backward) against its shard of full
attention; the trace (traffic) shows only point-to-point messages between ring neighbours, whose
bytes are those of the key/value blocks passed ``P-1`` times forward, and of those passes plus
the passes of dK/dV backward (``P-1`` or ``P`` of them, as the gradients come home), in at least
``P-1`` and at most a few messages per pass. The zigzag layout: the whole again from the
student's own shards, each ``2·chunk`` long and together holding ``x``'s values, for two tensors
sharded before either is unsharded (round trip: any consistent layout passes it); the
same number of unmasked causal ``(query, key)`` pairs on every rank, and then exactly chunks ``r``
and ``2P-1-r`` on rank ``r``, in that order (balance).
"""

from __future__ import annotations

import torch

from graders.chapters.ch9 import reference
from graders.chapters.ch9.checks import assert_shards
from graders.comm.assertions import fail as fail_with_trace
from graders.comm.collective_calls import phase_calls
from graders.judge.checks import assert_tensor_equal, describe, fail
from graders.words.messages import say


def assert_ring(run, case) -> None:
    assert_shards(run, case, hint=_hint(case), backward_hint="", grads=False)


def assert_ring_backward(run, case) -> None:
    assert_shards(run, case, hint=_hint(case), backward_hint=say("ch9:ring backward:hint"), outputs=False)


def assert_zigzag_ring(run, case) -> None:
    """The same attention over the zigzag layout, computed the way the exercise names: the ring's
    messages between neighbours (an all-gather of K/V and an all-reduce of dK/dV give the same
    values with no ring)."""
    assert_shards(run, case, hint=say("ch9:zigzag ring:hint"), backward_hint=say("ch9:zigzag ring:hint"))
    _assert_ring_messages(run, case)


def _hint(case):
    return say("ch9:causal ring:hint") if case.causal else say("ch9:ring:hint")


def block_bytes(case) -> int:
    """One rank's block of one of K or V, in bytes."""
    return case.seq_per_rank * case.heads * case.dim * case.whole[0].element_size()


def ring_bounds(case) -> dict[str, tuple[int, int, int, int]]:
    """Per phase: (fewest bytes, most bytes, fewest messages, most messages) each rank sends."""
    p = case.n
    block = block_bytes(case)
    if p == 1:
        return {"forward_end": (0, 0, 0, 0), "backward_end": (0, 0, 0, 0)}
    kv = 2 * block * (p - 1)  # k and v, passed P-1 times
    return {
        "forward_end": (kv, kv, p - 1, 2 * (p - 1)),
        "backward_end": (2 * kv, kv + 2 * block * p, p - 1, 4 * p),
    }


def assert_ring_traffic(run, case) -> None:
    """The forward's values first (traffic is judged on a ring that computes attention), then
    every rank's messages in both directions."""
    assert_ring(run, case)
    _assert_ring_messages(run, case)


def _assert_ring_messages(run, case) -> None:
    """Only point-to-point messages between ring neighbours, of the K/V (and dK/dV) bytes the
    ring passes, in both directions (a zigzag rank's two chunks make one block of the same size)."""
    ranks = list(case.ranks)
    directions = {"forward_end": say("ch9:forward"), "backward_end": say("ch9:backward")}
    for label, (least, most, fewest, most_messages) in ring_bounds(case).items():
        for i, rank in enumerate(ranks):
            events = phase_calls(run.traces, rank, label)
            neighbours = {ranks[(i + 1) % len(ranks)], ranks[(i - 1) % len(ranks)]}
            said = {"rank": rank, "direction": directions[label]}
            for event in events:
                if not event.is_p2p:
                    problem = say("ch9:ring collective", op=event.op, nbytes=event.nbytes, **said)
                    fail_with_trace(run.traces, problem, case, say("ch9:ring traffic:hint"))
                if event.peer not in neighbours:
                    where = {"op": event.op, "peer": event.peer, "neighbours": sorted(neighbours)}
                    problem = say("ch9:ring off the ring", **where, **said)
                    fail_with_trace(run.traces, problem, case, say("ch9:ring traffic:hint"))
            sent = sum(e.nbytes for e in events if e.is_send)
            received = sum(e.nbytes for e in events if e.is_recv)
            messages = sum(1 for e in events if e.is_send and e.nbytes > 0)
            counts = {"sent": sent, "received": received, "messages": messages}
            if not (least <= sent <= most and received == sent and fewest <= messages <= most_messages):
                bounds = {"least": least, "most": most, "fewest": fewest, "most_messages": most_messages}
                problem = say("ch9:ring bytes", **counts, **bounds, **said)
                fail_with_trace(run.traces, problem, case, say("ch9:ring traffic:hint"))


def ring_memory_limit(case) -> int:
    """The most bytes a ring's forward may have alive at once that it made: the block it attends
    to, the one arriving and a copy of each on its way out (three K/V pairs), the running output,
    a block's output and their log-sum-exps, and a few score-sized temporaries. A rank that keeps
    every block it was passed holds ``P - 1`` pairs: on 8 ranks, seven."""
    size = case.whole[0].element_size()
    scores = case.heads * case.seq_per_rank * case.seq_per_rank * max(size, 8)  # 8: a bool/long mask
    rows = case.heads * case.seq_per_rank * size
    return 9 * block_bytes(case) + 6 * scores + 6 * rows + MEMORY_SLACK


#: bytes of small tensors a ring may make besides (a step counter, a scalar scale)
MEMORY_SLACK = 512


def assert_ring_memory(run, case) -> None:
    """Every rank's output first (memory is judged on a ring that computes attention), then the
    most bytes its forward had alive at once."""
    assert_shards(run, case, hint=_hint(case), backward_hint="", grads=False)
    limit = ring_memory_limit(case)
    for rank in case.ranks:
        peak = run[rank]["peak"]
        if peak["bytes"] > limit:
            said = {"rank": rank, "peak": peak["bytes"], "where": peak["where"], "limit": limit}
            said |= {"block": block_bytes(case), "blocks": case.n}
            fail(say("ch9:ring memory", **said), case, say("ch9:ring memory:hint"))


# -- the zigzag layout -------------------------------------------------------------------------------


def assert_zigzag_round_trip(run, case) -> None:
    """The whole comes back from the student's own shards, which are equal in size."""
    got = run[0]
    shards = _listed(got["shards"], case.cp_size, case)
    size = 2 * case.chunk
    for r, shard in enumerate(shards):
        if (
            not isinstance(shard, torch.Tensor)
            or shard.dim() != case.x.dim()
            or shard.shape[case.dim] != size
        ):
            said = {"rank": r, "got": describe(shard), "size": size, "dim": case.dim}
            fail(say("ch9:zigzag shard size", **said), case, say("ch9:zigzag:hint"))
    kept = torch.sort(torch.cat([shard.flatten() for shard in shards])).values
    if not torch.equal(kept, torch.sort(case.x.flatten()).values):
        fail(say("ch9:zigzag values"), case, say("ch9:zigzag:hint"))
    hint = say("ch9:unshard:hint")
    what = say("ch9:zigzag again")
    assert_tensor_equal(got["again"], case.x, what=what, case=case, hint=hint)
    assert_tensor_equal(
        got["other_again"], case.x * 2 + 1, what=say("ch9:zigzag other"), case=case, hint=hint
    )


def causal_pairs(held: torch.Tensor) -> int:
    """Unmasked causal (query, key) pairs of the queries at positions ``held``: query p sees p + 1 keys."""
    return int((held.to(torch.int64) + 1).sum())


def assert_zigzag_balance(run, case) -> None:
    held = _listed(run[0]["held"], case.cp_size, case)
    for rank, positions in enumerate(held):
        integers = isinstance(positions, torch.Tensor) and not positions.is_floating_point()
        if not (integers and positions.dim() == 1):
            fail(say("ch9:zigzag held", rank=rank, got=describe(positions)), case, say("ch9:zigzag:hint"))
    every = torch.sort(torch.cat(held)).values
    if not torch.equal(every, torch.arange(case.seq)):
        fail(say("ch9:zigzag not a partition", seq=case.seq), case, say("ch9:zigzag:hint"))
    work = [causal_pairs(positions) for positions in held]
    if len(set(work)) > 1:
        listing = ", ".join(f"rank {rank}: {pairs}" for rank, pairs in enumerate(work))
        fail(say("ch9:zigzag unbalanced", listing=listing), case, say("ch9:balance:hint"))
    for rank, positions in enumerate(held):
        layout = reference.positions(rank, case.cp_size, 2 * case.chunk, "zigzag")
        if not torch.equal(positions.to(torch.int64), layout):
            said = {"rank": rank, "got": positions.tolist(), "expected": layout.tolist()}
            fail(say("ch9:zigzag not the layout", **said), case, say("ch9:zigzag:hint"))


def _listed(value, world: int, case) -> list:
    if not (isinstance(value, list) and len(value) == world):
        fail(say("ch9:zigzag shards", world=world, got=describe(value)), case, say("ch9:zigzag:hint"))
    return value
