"""Chapter 4 worker tasks: train with the student's data-parallel code for a few steps.

Every member of the case's group builds the same model (``case.model()``) and the same
global batches, trains on its own rows, and returns its parameters after every step. The
traces carry marks (``constructed``, ``no_sync_begin``/``no_sync_end``, ``forward_end``,
``backward_end``, ``step_end``) that cut them into the phases the structural checks read.
Ranks outside the group only join the group's creation.
"""

from __future__ import annotations

import contextlib

import torch

from graders.training import data_parallel_steps, report_gradients_ready, trainable
from graders.training.measured_training import MeasuredTraining
from graders.training.tiny_lm import named_parameters
from graders.world.task import task
from graders.world.values import plain


def _member(ctx, case):
    """(group, group rank), or (group, None) on ranks outside the group."""
    group = ctx.group(case.group)
    return group, (ctx.group_rank(case.group) if ctx.in_group(case.group) else None)


def _perturb_unless_first(model: torch.nn.Module, me: int) -> None:
    """Make every replica but group rank 0's different (frozen parameters too)."""
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.25 * me)


# -- parameter server -------------------------------------------------------------------------------


@task("ch4.param_server")
def param_server(ctx, case):
    group, me = _member(ctx, case)
    if me is None:
        return None
    model = case.model()
    optimizer = case.optimizer.build(trainable(model)) if me == 0 else None
    with ctx.student_code() as student:
        history = data_parallel_steps(
            model,
            case.batches(),
            shard=me,
            n=case.n,
            snapshot=lambda: named_parameters(model),
            after_backward=lambda: student.param_server_step(model, optimizer, group=group),
            mark=ctx.mark,
        )
    return {"history": history}


# -- DDP ---------------------------------------------------------------------------------------------


def _train_ddp(ctx, student, case, group, me):
    model = ctx.to_device(case.model())
    _perturb_unless_first(model, me)
    report_gradients_ready(model, ctx.gradient_ready)  # before the student's hooks: see comm.overlap
    ddp = student.DDP(model, group=group, bucket_cap_mb=case.bucket_cap_mb)
    ctx.mark("constructed")
    return data_parallel_steps(
        ddp,
        ctx.to_device(case.batches()),
        shard=me,
        n=case.n,
        snapshot=lambda: named_parameters(model),
        optimizer=case.optimizer.build(trainable(model)),
        after_backward=ddp.finish_gradient_synchronization,
        micro_batches=case.micro_per_step,
        no_sync=getattr(ddp, "no_sync", None),
        mark=ctx.mark,
    )


@task("ch4.ddp")
def ddp(ctx, case):
    group, me = _member(ctx, case)
    if me is None:
        return None
    with ctx.student_code() as student:
        history = _train_ddp(ctx, student, case, group, me)
    return {"history": history}


@task("ch4.ddp")
def ddp_and_torch_ddp(ctx, case):
    """The student's DDP, then torch's DistributedDataParallel (kit code) on the same data."""
    group, me = _member(ctx, case)
    if me is None:
        return None
    with ctx.student_code() as student:
        history = _train_ddp(ctx, student, case, group, me)
    model = ctx.to_device(case.model())
    _perturb_unless_first(model, me)
    reference = torch.nn.parallel.DistributedDataParallel(
        model,
        process_group=group,
        bucket_cap_mb=case.bucket_cap_mb,
        find_unused_parameters=not case.every_param_used,
    )
    torch_history = data_parallel_steps(
        reference,
        ctx.to_device(case.batches()),
        shard=me,
        n=case.n,
        snapshot=lambda: named_parameters(model),
        optimizer=case.optimizer.build(trainable(model)),
    )
    return {"history": history, "torch": torch_history}


# -- sharded data parallelism ------------------------------------------------------------------------


def _train_sharded(ctx, case, *, measure: bool):
    """History of (this rank's flat_param, the frozen parameters); with ``measure``, the live
    ledger of everything the rank holds while it trains."""
    group, me = _member(ctx, case)
    if me is None:
        return None
    model, batches = case.model(), case.batches()
    measured = None
    if measure:
        batch = batches[0].shard(me, case.n)
        measured = MeasuredTraining(ctx, model, plain_model=case.model(), batch=batch)

    def snapshot():
        shard = getattr(sdp, "flat_param", None)
        shard = shard.detach().clone() if isinstance(shard, torch.Tensor) else plain(shard)
        frozen = {name: p.detach().clone() for name, p in model.named_parameters() if not p.requires_grad}
        return {"flat_param": shard, "frozen": frozen}

    with measured or contextlib.nullcontext(), ctx.student_code() as student:
        sdp = student.ShardedDataParallel(model, group=group)
        (measured or ctx).mark("constructed")
        optimizer = case.optimizer.build([p for p in sdp.parameters() if p.requires_grad])
        history = data_parallel_steps(
            sdp,
            batches,
            shard=me,
            n=case.n,
            snapshot=measured.kit(snapshot) if measured else snapshot,
            optimizer=optimizer,
            mark=measured.mark if measured else ctx.mark,
        )
    value = {"history": history}
    if measured is not None:
        value["live"] = measured.summary()
    return value


@task("ch4.fsdp")
def fsdp(ctx, case):
    return _train_sharded(ctx, case, measure=False)


@task("ch4.fsdp")
def fsdp_measured(ctx, case):
    """As fsdp, and what the rank keeps alive: peaks by phase, and between steps."""
    return _train_sharded(ctx, case, measure=True)
