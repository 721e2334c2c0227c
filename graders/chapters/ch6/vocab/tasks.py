"""Chapter 6 worker tasks of the vocabulary-parallel layers: the embedding, the cross-entropy, and
the largest tensor the cross-entropy makes (the full logits must never be)."""

from __future__ import annotations

import contextlib

import torch

from graders.chapters.ch6.tasks import grad_of
from graders.training.backward import backpropagate
from graders.training.live_memory import LiveLedger
from graders.training.owned import only_own_chunk
from graders.world.task import task
from graders.world.values import plain


@task("ch6.vocab_parallel_embedding")
def vocab_parallel_embedding(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    with ctx.student_code() as student:
        mine = only_own_chunk(case.table, 0, ctx.group_rank(case.group), case.n)  # its rows real, others NaN
        layer = student.VocabParallelEmbedding(case.vocab, case.dim, group, master_weight=mine)
        y = layer(case.ids.clone())
        ctx.mark("forward_end")
        skipped = backpropagate(y, case.grad)
        ctx.mark("backward_end")
    weight = getattr(layer, "weight", None)
    return {
        "output": y.detach() if isinstance(y, torch.Tensor) else plain(y),
        "weight_grad": grad_of(weight) if isinstance(weight, torch.Tensor) else None,
        "skipped": skipped,
    }


def local_logits(case, i: int) -> torch.Tensor:
    return case.table.chunk(case.n, -1)[i].clone().contiguous()


@task("ch6.vocab_parallel_cross_entropy")
def vocab_parallel_cross_entropy(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    logits = local_logits(case, ctx.group_rank(case.group)).requires_grad_()
    with ctx.student_code() as student:
        loss = student.vocab_parallel_cross_entropy(logits, case.ids.clone(), group=group)
        ctx.mark("forward_end")
        skipped = backpropagate(loss, case.grad)
        ctx.mark("backward_end")
    return {
        "output": loss.detach() if isinstance(loss, torch.Tensor) else plain(loss),
        "logits_after": logits.detach(),
        "logits_grad": grad_of(logits),
        "skipped": skipped,
    }


@task("ch6.vocab_parallel_cross_entropy")
def cross_entropy_largest(ctx, case):
    """The largest single storage graded code made in the cross-entropy's forward and backward."""
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    logits = local_logits(case, ctx.group_rank(case.group)).requires_grad_()
    ledger = LiveLedger(ctx.location.chapter_dir)
    ctx.release_buffers()
    with ledger, ctx.student_code() as student:
        ledger.enter("call")
        loss = student.vocab_parallel_cross_entropy(logits, case.ids.clone(), group=group)
        with contextlib.suppress(RuntimeError, AttributeError, TypeError):
            loss.backward(case.grad.clone())
    largest = ledger.summary().get("largest:call", {"bytes": 0, "where": ""})
    return {"largest": largest, "loss": loss.detach() if isinstance(loss, torch.Tensor) else None}
