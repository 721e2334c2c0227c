"""Chapter 9 judgements on blockwise attention and Ulysses.

Blockwise attention: ``(out, lse)`` against full attention (result), then the largest storage the
call made against one block of scores or the output, whichever is larger, and the most bytes it
held alive at once against a few blocks of scores and rows of the output (memory: every score
block kept in a list is the whole score matrix in pieces). Ulysses:
every rank's output and gradients against its shard of full attention on the whole sequence
(result, with :func:`assert_shards`, which Ring Attention shares); exactly two all-to-alls each
way, of the stacked q, k, v and of the output (traffic); a clear ``ValueError`` for a head count
the group does not divide (heads).
"""

from __future__ import annotations

import torch

from graders.chapters.ch9 import reference
from graders.chapters.ch9.cases import held_per_row
from graders.comm.assertions import fail as fail_with_trace
from graders.comm.collective_calls import phase_calls
from graders.judge.checks import assert_tensor_equal, describe, fail
from graders.words.messages import say

#: sums in another order than the reference's (blocks, the online rescaling)
TOLERANCES = {torch.float32: (1e-4, 1e-5), torch.float64: (1e-9, 1e-11)}
ALL_TO_ALLS = frozenset({"all_to_all", "all_to_all_single"})
#: bytes of slack on the largest storage (a scalar, a small index tensor); an index of every
#: position (``torch.arange(seq)``, for a causal mask) may be the largest too
LARGEST_SLACK = 64
#: bytes of slack on what blockwise attention holds at once (masks and indices of a block)
PEAK_SLACK = 4096


def _out_and_lse(returned, case):
    if not (isinstance(returned, list) and len(returned) == 2):
        fail(say("ch9:not a pair", got=describe(returned)), case, say("ch9:blockwise:hint"))
    return returned


def assert_blockwise(run, case) -> None:
    out, lse = _out_and_lse(run[0]["returned"], case)
    want_out, want_lse = reference.attention(case.q, case.k, case.v, case.causal)
    hint = say("ch9:causal:hint") if case.causal else say("ch9:blockwise:hint")
    assert_tensor_equal(out, want_out, what=say("ch9:output"), case=case, hint=hint, tolerances=TOLERANCES)
    assert_tensor_equal(
        lse, want_lse, what=say("ch9:lse"), case=case, hint=say("ch9:lse:hint"), tolerances=TOLERANCES
    )


def peak_limit(case) -> int:
    """The most bytes the call may hold alive at once (:func:`cases.held_per_row` per row)."""
    rows = case.batch * case.heads * case.seq
    return rows * held_per_row(case.block_size, case.dim) * case.q.element_size() + PEAK_SLACK


def assert_blockwise_memory(run, case) -> None:
    assert_blockwise(run, case)
    itemsize = case.q.element_size()
    rows = case.batch * case.heads * case.seq
    full = rows * case.seq * itemsize
    positions = case.seq * torch.empty((), dtype=torch.int64).element_size()  # an index per position
    limit = max(rows * max(case.block_size, case.dim) * itemsize, positions) + LARGEST_SLACK
    largest = run[0]["largest"]
    if largest["bytes"] > limit:
        said = {"bytes": largest["bytes"], "where": largest.get("where", ""), "limit": limit, "full": full}
        fail(say("ch9:largest", **said), case, say("ch9:memory:hint"))
    peak, most = run[0]["peak"], peak_limit(case)
    if peak["bytes"] > most:
        said = {"bytes": peak["bytes"], "where": peak.get("where", ""), "limit": most, "full": full}
        fail(say("ch9:peak", **said), case, say("ch9:peak:hint"))


def _ran(run, case, hint):
    for rank in case.ranks:
        got = run[rank]
        if "value_error" in got:
            fail(
                say("ch9:unexpected value error", rank=rank, error=got["value_error"]),
                case,
                hint,
            )
        if got["skipped"]:
            fail(say("ch9:no backward", rank=rank, why=got["skipped"]), case, say("ch9:no backward:hint"))


def assert_shards(run, case, *, hint, backward_hint, outputs: bool = True, grads: bool = True) -> None:
    """Every rank's output and gradients of q, k, v against its shard of full attention."""
    _ran(run, case, hint)
    want = reference.sharded_attention(case)
    for i, rank in enumerate(case.ranks):
        got = run[rank]
        if outputs:
            what = say("ch9:rank output", rank=rank)
            assert_tensor_equal(
                got["output"], want[i]["output"], what=what, case=case, hint=hint, tolerances=TOLERANCES
            )
        if not grads:
            continue
        for name, grad, expected in zip("qkv", got["grads"], want[i]["grads"], strict=True):
            what = say("ch9:rank grad", rank=rank, name=name)
            assert_tensor_equal(
                grad, expected, what=what, case=case, hint=backward_hint, tolerances=TOLERANCES
            )


def assert_ulysses(run, case) -> None:
    assert_shards(run, case, hint=say("ch9:ulysses:hint"), backward_hint=say("ch9:ulysses backward:hint"))


def assert_ulysses_traffic(run, case) -> None:
    assert_ulysses(run, case)
    qkv, out = reference.ulysses_bytes(case)
    group = tuple(case.ranks)
    expected = {"forward_end": [qkv, out], "backward_end": [out, qkv]}
    directions = {"forward_end": say("ch9:forward"), "backward_end": say("ch9:backward")}
    for rank in case.ranks:
        for label, sizes in expected.items():
            events = phase_calls(run.traces, rank, label)
            shown = ", ".join(f"{e.op} of {e.nbytes} B" for e in events) or "none"
            ok = [e.nbytes for e in events] == sizes and all(
                e.op in ALL_TO_ALLS and tuple(e.group) == group for e in events
            )
            if not ok:
                said = {
                    "rank": rank,
                    "direction": directions[label],
                    "got": shown,
                    "qkv": sizes[0],
                    "out": sizes[1],
                }
                fail_with_trace(
                    run.traces, say("ch9:ulysses traffic", **said), case, say("ch9:ulysses traffic:hint")
                )


def assert_heads_rejected(run, case) -> None:
    for rank in case.ranks:
        got = run[rank]
        if "value_error" not in got:
            fail(
                say("ch9:heads accepted", rank=rank, heads=case.heads, n=case.n), case, say("ch9:heads:hint")
            )
        text = got["value_error"]
        if str(case.heads) not in text or str(case.n) not in text:
            fail(
                say("ch9:heads message", rank=rank, message=text, heads=case.heads, n=case.n),
                case,
                say("ch9:heads:hint"),
            )
