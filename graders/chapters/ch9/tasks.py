"""Chapter 9 worker tasks.

Blockwise attention runs under the live ledger, whose ``largest:forward`` is the largest single
storage the call made (a full score matrix would be it). Ulysses runs forward and backward on
every rank of the group, with ``forward_end`` / ``backward_end`` marks; with a head count the
group does not divide, the task reports the ``ValueError`` it expects.
"""

from __future__ import annotations

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
    return {"returned": plain(returned), "largest": ledger.summary().get("largest:forward", {"bytes": 0})}


@task("ch9.ulysses_attention")
def ulysses_attention(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    q, k, v = (t.clone().requires_grad_() for t in case.qs[i])
    with ctx.student_code() as student:
        try:
            out = student.ulysses_attention(q, k, v, case.causal, group=group)
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
