"""Chapter 6 worker tasks of the blocks: the student's MLP and attention block forward and
backward, and what a block keeps for backward without and with sequence parallelism.

Saved tensors are counted with ``torch.autograd.graph.saved_tensors_hooks`` (each storage
once, at its full size): the activations a block keeps for its backward, its input
included. The live ledger (:class:`graders.training.live_memory.LiveLedger`) counts, beside
them, every storage born in forward and still alive when forward returns, wherever graded
code keeps it.
"""

from __future__ import annotations

import torch

from graders.chapters.ch6.blocks import cases
from graders.chapters.ch6.tasks import grad_of
from graders.training import gpt as models
from graders.training.backward import backpropagate
from graders.training.live_memory import LiveLedger
from graders.training.owned import block_state_for
from graders.training.saved_bytes import SavedBytes
from graders.world.task import task
from graders.world.values import plain


def block_local(case, i: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Group rank ``i``'s input and output gradient: the whole tensors, or (sequence
    parallel) chunk ``i`` of the sequence."""
    if case.sequence_parallel:
        return case.x.chunk(case.n, 0)[i].clone(), case.grad.chunk(case.n, 0)[i].clone()
    return case.x.clone(), case.grad.clone()


def build_block(student, case, group, state, *, dropout: float = 0.0):
    if case.kind == "mlp":
        return student.ParallelMLP(state, group, sequence_parallel=case.sequence_parallel, dropout=dropout)
    return student.ParallelAttention(
        state, case.width, group, sequence_parallel=case.sequence_parallel, dropout=dropout
    )


def _named_grads(block) -> dict:
    return (
        {name: grad_of(p) for name, p in block.named_parameters()}
        if hasattr(block, "named_parameters")
        else {}
    )


def _block(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    x, g = block_local(case, i)
    x.requires_grad_()
    state = block_state_for(models.state_of(case.single_device()), i, case.n)  # its shards real
    with ctx.student_code() as student:
        block = build_block(student, case, group, state)
        y = block(x)
        ctx.mark("forward_end")
        skipped = backpropagate(y, g)
        ctx.mark("backward_end")
    return {
        "output": y.detach() if isinstance(y, torch.Tensor) else plain(y),
        "input_grad": grad_of(x),
        "grads": _named_grads(block),
        "skipped": skipped,
    }


@task("ch6.parallel_mlp")
def parallel_mlp(ctx, case):
    return _block(ctx, case)


@task("ch6.parallel_attention")
def parallel_attention(ctx, case):
    return _block(ctx, case)


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
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    reference = case.single_device()
    state = models.state_of(reference)
    tensor_parallel = cases.build_block(**{**cases.fields(case), "sequence_parallel": False})
    sequence_parallel = cases.build_block(**{**cases.fields(case), "sequence_parallel": True})
    ledger = LiveLedger(ctx.location.chapter_dir, python_heap=("tp", "sp"))
    ctx.release_buffers()
    measured = {}
    with ledger, ctx.student_code() as student:
        x_plain = case.x.clone().requires_grad_()
        measured["plain"] = _measure_forward(ledger, "plain", lambda: reference(x_plain))
        for label, variant in (("tp", tensor_parallel), ("sp", sequence_parallel)):
            torch.manual_seed(case.seed)
            ledger.enter("setup")  # building the block is not its forward
            block = build_block(student, variant, group, state, dropout=case.dropout)
            x, _ = block_local(variant, i)
            x.requires_grad_()
            measured[label] = _measure_forward(ledger, label, lambda b=block, x=x: b(x))
            ctx.mark(f"{label}_end")
    return {label: {"saved": m["saved"], "kept": m["kept"]} for label, m in measured.items()}
