"""Chapter 6 judgements of the vocabulary-parallel layers: the embedding and the cross-entropy
against ``F.embedding`` / ``F.cross_entropy``, their traffic, and the cross-entropy's largest tensor."""

from __future__ import annotations

import torch

from graders.chapters.ch6.checks import ran_backward
from graders.chapters.ch6.vocab import reference
from graders.chapters.ch6.vocab.cases import VocabCase
from graders.comm.collective_calls import assert_exact_calls
from graders.judge.checks import TOLERANCES, assert_tensor_equal, assert_unchanged, fail
from graders.words.messages import say


def assert_embedding(run, case: VocabCase) -> None:
    full = reference.embedding(case)
    hint = say("ch6:embedding:hint")
    ran_backward(run, case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["output"], full["output"], what=say("ch6:output", rank=rank), case=case, hint=hint
        )
        want = full["weight_grad"].chunk(case.n, 0)[i]
        assert_tensor_equal(
            run[rank]["weight_grad"], want, what=say("ch6:weight grad", rank=rank), case=case, hint=hint
        )


def assert_embedding_traffic(run, case: VocabCase) -> None:
    assert_embedding(run, case)
    hint = say("ch6:embedding traffic:hint")
    forward = [("all_reduce", case.tokens * case.dim * case.itemsize)]
    assert_exact_calls(
        run.traces, case.ranks, "forward_end", forward, case, hint, direction=say("ch6:forward")
    )
    assert_exact_calls(run.traces, case.ranks, "backward_end", [], case, hint, direction=say("ch6:backward"))


#: ulps of the logits' largest magnitude a correct cross-entropy may be off by: each form subtracts
#: quantities of the logits' size (a maximum, a log-sum-exp, the target's logit) at some point
LOGIT_ULPS = 4


def logit_tolerances(case: VocabCase) -> dict:
    """Per dtype ``(rtol, atol)``: the usual ones, with ``atol`` at least :data:`LOGIT_ULPS` spacings of
    the logits' largest magnitude. On logits of a few hundred a loss of a few units, or a softmax
    probability, is only known to a few ulps of 300, not of itself: how much depends on where a
    correct form subtracts, not on a bug."""
    scale = float(case.table.abs().max()) if case.table.numel() else 0.0
    found = {}
    for dtype, (rtol, atol) in TOLERANCES.items():
        found[dtype] = (rtol, max(atol, LOGIT_ULPS * torch.finfo(dtype).eps * scale))
    return found


def assert_cross_entropy(run, case: VocabCase) -> None:
    full = reference.cross_entropy(case)
    hint = say("ch6:cross entropy:hint")
    ran_backward(run, case)
    tolerances = logit_tolerances(case)
    for i, rank in enumerate(case.ranks):
        what = say("ch6:loss", rank=rank)
        assert_tensor_equal(
            run[rank]["output"], full["output"], what=what, case=case, hint=hint, tolerances=tolerances
        )
        want = full["logits_grad"].chunk(case.n, -1)[i]
        what = say("ch6:logits grad", rank=rank)
        assert_tensor_equal(
            run[rank]["logits_grad"], want, what=what, case=case, hint=hint, tolerances=tolerances
        )
        local = case.table.chunk(case.n, -1)[i]
        assert_unchanged(local, run[rank]["logits_after"], what=say("ch6:logits", rank=rank), case=case)


#: numbers per token a vocabulary-parallel cross-entropy may exchange, at 8 bytes each
CROSS_ENTROPY_NUMBERS = 4


def assert_cross_entropy_traffic(run, case: VocabCase) -> None:
    """A few numbers per token, by all-reduce: never the logits (no all-gather, no message)."""
    assert_cross_entropy(run, case)
    hint = say("ch6:cross entropy traffic:hint")
    if case.n == 1:
        return
    most, least = CROSS_ENTROPY_NUMBERS * case.tokens * 8, 2 * case.tokens * case.itemsize
    for rank in case.ranks:
        events = [e for e in run.traces[rank] if not (e.is_mark or e.is_ready)]
        for event in events:
            if (
                event.is_p2p
                or event.op.startswith("all_gather")
                or event.op in ("gather", "all_to_all", "all_to_all_single")
            ):
                fail(say("ch6:logits gathered", rank=rank, op=event.op, nbytes=event.nbytes), case, hint)
        sent = sum(e.nbytes for e in events)
        if sent > most:
            fail(
                say("ch6:cross entropy too much", rank=rank, sent=sent, limit=most, tokens=case.tokens),
                case,
                hint,
            )
        if sent < least:
            fail(
                say("ch6:cross entropy too little", rank=rank, sent=sent, least=least, tokens=case.tokens),
                case,
                hint,
            )


def assert_cross_entropy_memory(run, case: VocabCase) -> None:
    """No tensor larger than the rank's own logits at 8 bytes per element: the full logits
    (``n`` times the shard) are never made."""
    full = reference.cross_entropy(case)
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["loss"],
            full["output"],
            what=say("ch6:loss", rank=rank),
            case=case,
            hint=say("ch6:cross entropy:hint"),
        )
        limit = case.tokens * (case.vocab // case.n) * 8
        largest = run[rank]["largest"]
        if largest["bytes"] > limit:
            said = {
                "rank": rank,
                "bytes": largest["bytes"],
                "where": largest["where"],
                "limit": limit,
                "full": case.tokens * case.vocab * case.itemsize,
            }
            fail(say("ch6:cross entropy memory", **said), case, say("ch6:cross entropy memory:hint"))
