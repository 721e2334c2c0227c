"""Chapter 6 worker tasks that measure memory: what a block keeps for backward, and the
largest tensor the vocabulary-parallel cross-entropy makes.

Saved tensors are counted with ``torch.autograd.graph.saved_tensors_hooks`` (each storage
once, at its full size): the activations a block keeps for its backward, its input
included. The live ledger (:class:`graders.training.live_memory.LiveLedger`) counts, beside
them, every storage born in forward and still alive when forward returns, wherever graded
code keeps it.
"""

from __future__ import annotations

import contextlib

import torch

from graders.chapters.ch6.blocks import cases
from graders.training.live_memory import LiveLedger
from graders.training.saved_bytes import SavedBytes
from graders.world.task import task


def _measure_forward(ledger: LiveLedger, phase: str, forward) -> dict:
    """Run ``forward()`` as ``phase``: the saved bytes, and the bytes born in it that are
    still alive when it returns (its output aside)."""
    saved = SavedBytes()
    ledger.enter(phase)
    with saved:
        output = forward()
    kept = sum(ledger.alive_born_in(phase).values())
    if isinstance(output, torch.Tensor):
        kept -= ledger.bytes_of([output])
    return {"saved": saved.nbytes, "kept": kept, "output": output}


@task("ch6.parallel_mlp")
def block_saved_bytes(ctx, case):
    """The MLP block forward with dropout: on one device (the kit's block, the whole input),
    then the student's block without and with sequence parallelism, each on this rank's input."""
    from graders.chapters.ch6.tasks import block_local, build_block
    from graders.training import gpt as models

    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    reference = case.single_device()
    state = models.state_of(reference)
    tensor_parallel = cases.build_block(**{**cases.fields(case), "sequence_parallel": False})
    sequence_parallel = cases.build_block(**{**cases.fields(case), "sequence_parallel": True})
    ledger = LiveLedger(ctx.location.chapter_dir)
    ctx.release_buffers()
    measured = {}
    with ledger, ctx.student_code() as student:
        x_plain = case.x.clone().requires_grad_()
        measured["plain"] = _measure_forward(ledger, "plain", lambda: reference(x_plain))
        for label, variant in (("tp", tensor_parallel), ("sp", sequence_parallel)):
            torch.manual_seed(case.seed)
            block = build_block(student, variant, group, state, dropout=case.dropout)
            x, _ = block_local(variant, i)
            x.requires_grad_()
            measured[label] = _measure_forward(ledger, label, lambda b=block, x=x: b(x))
            ctx.mark(f"{label}_end")
    return {label: {"saved": m["saved"], "kept": m["kept"]} for label, m in measured.items()}


@task("ch6.vocab_parallel_cross_entropy")
def cross_entropy_largest(ctx, case):
    """The largest single storage graded code made in the cross-entropy's forward and backward."""
    from graders.chapters.ch6.tasks import local_logits

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
