"""Chapter 9 worker tasks.

Blockwise attention runs under the live ledger, whose ``largest:forward`` is the largest single
storage the call made (a full score matrix would be it) and ``forward`` the most bytes alive at
once (every block of scores kept would be it). Ulysses and Ring Attention run forward
and backward on every rank of the group, each on its shard of the sequence, with ``forward_end``
/ ``backward_end`` marks; a ``ValueError`` (Ulysses' indivisible heads) is reported as such. The
zigzag layout's functions are pure: one worker runs them for every rank.
"""

from __future__ import annotations

import torch

from graders.training.backward import backpropagate
from graders.training.live_memory import LiveLedger
from graders.world.task import task
from graders.world.values import plain


@task("ch9.blockwise_attention")
def blockwise_attention(ctx, case):
    q, k, v = case.q.clone(), case.k.clone(), case.v.clone()
    ledger = LiveLedger(ctx.location.chapter_dir)
    with ledger, ctx.student_code() as student:
        ledger.enter("forward")
        returned = student.blockwise_attention(q, k, v, case.block_size, case.causal)
        ledger.enter("after")
    summary = ledger.summary()
    nothing = {"bytes": 0, "where": ""}
    return {
        "returned": plain(returned),
        "largest": summary.get("largest:forward", nothing),
        "peak": summary.get("forward", nothing),
    }


def _attention_on_shards(ctx, case, attend) -> dict | None:
    """Run ``attend(q, k, v, group)`` on this rank's shard, forward then backward, with marks."""
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    q, k, v = (t.clone().requires_grad_() for t in case.qs[i])
    with ctx.student_code() as student:
        try:
            out = attend(student, q, k, v, group)
        except ValueError as error:
            return {"value_error": str(error)}
        ctx.mark("forward_end")
        skipped = backpropagate(out, case.grads[i])
        ctx.mark("backward_end")
    return {
        "output": plain(out),
        "grads": [plain(t.grad) for t in (q, k, v)],
        "skipped": skipped,
    }


@task("ch9.ulysses_attention")
def ulysses_attention(ctx, case):
    def attend(student, q, k, v, group):
        return student.ulysses_attention(q, k, v, case.causal, group=group)

    return _attention_on_shards(ctx, case, attend)


@task("ch9.ring_attention")
def ring_attention(ctx, case):
    def attend(student, q, k, v, group):
        return student.ring_attention(q, k, v, case.causal, group=group)

    return _attention_on_shards(ctx, case, attend)


@task("ch9.ring_attention")
def ring_attention_memory(ctx, case):
    """The ring's forward under the live ledger: the most bytes alive at once that it made (its
    own q, k, v are the kit's), and where."""
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    q, k, v = (t.clone() for t in case.qs[i])
    ledger = LiveLedger(ctx.location.chapter_dir)
    ctx.release_buffers()  # what gloo's threads hold of a finished message is cut loose in time
    with ledger, ctx.student_code() as student:
        ledger.enter("forward")
        out = student.ring_attention(q, k, v, case.causal, group=group)
        ledger.enter("after")
    peak = ledger.peaks.get("forward")
    return {
        "output": plain(out),
        "peak": peak.plain() if peak is not None else {"bytes": 0, "where": ""},
        "skipped": "",  # forward only: no backward is asked for
    }


@task("ch9.zigzag_ring_attention")
def zigzag_ring_attention(ctx, case):
    def attend(student, q, k, v, group):
        return student.ring_attention(q, k, v, case.causal, group=group, layout="zigzag")

    return _attention_on_shards(ctx, case, attend)


@task("ch9.zigzag_shard")
def zigzag_shard(ctx, case):
    """Every rank's shard of ``x``, of a second tensor and of the positions ``0 … seq-1``; then the
    whole of ``x`` again from its shards, and of the second from its own (in that order: a module
    that kept the last tensor it was handed gives the wrong one back)."""
    world, dim = case.cp_size, case.dim
    second = case.x * 2 + 1

    def copies(shards):
        return [s.clone() if isinstance(s, torch.Tensor) else s for s in shards]

    with ctx.student_code() as student:
        shards = [student.zigzag_shard(case.x.clone(), r, world, dim=dim) for r in range(world)]
        others = [student.zigzag_shard(second.clone(), r, world, dim=dim) for r in range(world)]
        held = [student.zigzag_shard(torch.arange(case.seq), r, world) for r in range(world)]
        again = student.zigzag_unshard(copies(shards), dim=dim)
        other_again = student.zigzag_unshard(copies(others), dim=dim)
    return {
        "shards": plain(shards),
        "held": plain(held),
        "again": plain(again),
        "other_again": plain(other_again),
    }


@task("ch9.zigzag_ring_attention")
def torch_context_parallel_layout(ctx, case):
    """Torch's experimental context parallelism on this world (the kit's cross-check, no student
    code): the positions it leaves this rank of a sharded buffer, and what its attention does on
    CPU."""
    import torch.nn.functional as F
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor.experimental import context_parallel

    mesh = DeviceMesh.from_group(ctx.group(case.group) or torch.distributed.group.WORLD, "cpu")
    seq = case.seq
    held = torch.arange(seq, dtype=torch.float64).view(1, 1, seq, 1)  # shaped as the attention's inputs
    q, k, v = (t.transpose(0, 1)[None].contiguous() for t in case.whole[:3])  # [1, h, s, d]
    with context_parallel(mesh, buffers=[held, q, k, v], buffer_seq_dims=[2, 2, 2, 2]):
        kept = [int(p) for p in held.flatten().tolist()]  # inside: on leaving, torch restores the buffers
        try:
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
            attention = "ran"
        except Exception as error:  # noqa: BLE001  (which error, exactly, is the finding)
            attention = f"{type(error).__name__}: {error}"
    return {"held": kept, "attention": attention}


def _costs(ctx, calls) -> list:
    """Each call's value, or the ValueError it raised (as ``{"value_error": text}``)."""
    answers = []
    with ctx.student_code() as student:
        for name, args, kwargs in calls:
            try:
                answers.append(plain(getattr(student, name)(*args, **kwargs)))
            except ValueError as error:
                answers.append({"value_error": str(error)})
    return answers


def _cost_call(case) -> tuple:
    if case.function == "score_bytes":
        args = (case.method, case.seq, case.heads, case.world, case.block_size, case.bytes_per_element)
        return case.function, args, {}
    args = (case.seq, case.heads, case.head_dim, case.world, case.bytes_per_element)
    return case.function, args, {"backward": case.backward}


@task("ch9.score_bytes")
def score_bytes(ctx, case):
    return _costs(ctx, [_cost_call(case)])[0]


def _comm_bytes(ctx, case):
    """A formula case, or every measured row of the case's method."""
    return _measured(ctx, case) if hasattr(case, "rows") else _costs(ctx, [_cost_call(case)])[0]


@task("ch9.ring_comm_bytes")
def ring_comm_bytes(ctx, case):
    return _comm_bytes(ctx, case)


@task("ch9.ulysses_comm_bytes")
def ulysses_comm_bytes(ctx, case):
    return _comm_bytes(ctx, case)


def _measured(ctx, case) -> list:
    """Per measured row: the student's (forward only, forward and backward)."""
    name = f"{case.method}_comm_bytes"
    calls = []
    for row in case.rows:
        sizes = (row.seq, row.heads, row.head_dim, row.world, row.bytes_per_element)
        calls += [(name, sizes, {"backward": False}), (name, sizes, {"backward": True})]
    answers = _costs(ctx, calls)
    return [answers[i : i + 2] for i in range(0, len(answers), 2)]
