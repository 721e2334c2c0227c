"""Chapter 5 worker tasks for ZeRO-Infinity: train with the student's ``InfinityOptimizer`` on a
drive the kit hands it (:class:`graders.training.swap_files.SwapFiles`, a fresh folder per rank).

Besides the parameters after every step, a task returns what the drive saw: every request in
program order (each tagged with the step it came in: 0 for construction), the files and their
sizes after construction and after every step, and the most bytes of swapped tensors alive at
once in each step. The crash task tears one write of the last step and returns the files as
the crash left them.
"""

from __future__ import annotations

import torch
from torch import nn

from graders.chapters.ch5.tasks import _batches, _train_with_optimizer
from graders.comm.recorder import REAL
from graders.training import trainable
from graders.training.swap_files import SimulatedPowerLoss, SwapFiles
from graders.training.tiny_lm import lm_loss, named_parameters
from graders.world.task import task


def _construct(swap: SwapFiles, case):
    def construct(student, model, optimizer_cls, group):
        return student.InfinityOptimizer(
            model.parameters(),
            optimizer_cls,
            swap.drive(),
            group=group,
            partition_numel=case.partition_numel,
            **case.optimizer.hparams,
        )

    return construct


def _drive_report(swap: SwapFiles, on_drive: list[dict[str, int]]) -> dict:
    return {
        "events": [event.plain() for event in swap.events],
        "on_drive": on_drive,  # [after construction, after step 1, ...]
        "resident": {str(step): peak for step, peak in swap.resident_peak.items()},
        "tampered": swap.tampered(),
    }


def _train_infinity(ctx, case, *, measure: bool):
    with ctx.scratch_dir() as folder:
        swap = SwapFiles(folder)
        on_drive: list[dict[str, int]] = []

        def on_mark(label: str) -> None:
            if label == "backward_end":
                swap.begin_step(swap.step + 1)
            elif label in ("constructed", "step_end"):
                on_drive.append(swap.files())

        try:
            observed = swap.observed(case.optimizer.optimizer_cls)
            value = _train_with_optimizer(
                ctx, case, _construct(swap, case), measure=measure, on_mark=on_mark, optimizer_cls=observed
            )
        finally:
            swap.close()
        if value is not None:
            value["drive"] = _drive_report(swap, on_drive)
        return value


@task("ch5.infinity")
def infinity_train(ctx, case):
    return _train_infinity(ctx, case, measure=False)


@task("ch5.infinity")
def infinity_measured(ctx, case):
    """As infinity_train, and the live ledger of everything the rank holds."""
    return _train_infinity(ctx, case, measure=True)


@task("ch5.infinity")
def infinity_crash(ctx, case):
    """One rank: step 1 as usual, then step 2 with its ``tear_at``-th write (counted modulo the
    writes step 1 made) cut off half-done. Returns the files before and after step 2 and what
    the step raised."""
    with ctx.scratch_dir() as folder:
        swap = SwapFiles(folder)
        model = case.model()
        first, second = case.batches(2, case.rows)
        raised = None
        try:
            with ctx.student_code() as student:
                observed = swap.observed(case.optimizer.optimizer_cls)
                optimizer = _construct(swap, case)(student, model, observed, None)
                swap.begin_step(1)
                _one_step(model, optimizer, first)
                before = swap.files()
                writes = sum(1 for event in swap.events if event.step == 1 and event.op == "write")
                swap.tear_write((case.tear_at - 1) % max(writes, 1) + 1)
                swap.begin_step(2)
                try:
                    _one_step(model, optimizer, second)
                except SimulatedPowerLoss as exc:
                    raised = str(exc)
        finally:
            swap.close()
        return {
            "before": before,
            "after": swap.files(),
            "raised": raised,
            "writes": writes,
            "tampered": swap.tampered(),
        }


@task("ch5.infinity")
def infinity_zero3(ctx, case):
    """ZeRO-3 played by the kit around the student's ``InfinityOptimizer(..., sharded=True)``: each
    trained parameter's chunk of N is this rank's shard (a parameter of its own); after backward
    the kit reduce-scatters and averages every gradient into its shard's ``.grad``, the student
    steps the shards, and the kit all-gathers them into the model."""
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    model, n, me = case.model(), case.n, ctx.group_rank(case.group)
    params = trainable(model)
    chunks = [-(-p.numel() // n) for p in params]
    shards = [
        nn.Parameter(_padded(p.detach(), c * n)[me * c : (me + 1) * c].clone())
        for p, c in zip(params, chunks)
    ]
    history = []
    with ctx.scratch_dir() as folder:
        swap = SwapFiles(folder)
        try:
            with ctx.student_code() as student:
                optimizer = student.InfinityOptimizer(
                    shards,
                    swap.observed(case.optimizer.optimizer_cls),
                    swap.drive(),
                    group=group,
                    partition_numel=case.partition_numel,
                    sharded=True,
                    **case.optimizer.hparams,
                )
                for batch in _batches(case):
                    optimizer.zero_grad()
                    model.zero_grad(set_to_none=True)
                    local = batch.shard(me, n)
                    lm_loss(model, local.tokens, local.targets).backward()
                    _reduce_into_shards(params, shards, chunks, group, n, me)
                    optimizer.step()
                    _gather_into_model(params, shards, chunks, group, n)
                    history.append(named_parameters(model))
        finally:
            swap.close()
    return {"history": history, "drive": _drive_report(swap, [])}


def _padded(tensor: torch.Tensor, numel: int) -> torch.Tensor:
    flat = torch.zeros(numel, dtype=tensor.dtype)
    flat[: tensor.numel()] = tensor.reshape(-1)
    return flat


def _reduce_into_shards(params, shards, chunks, group, n: int, me: int) -> None:
    with torch.no_grad():
        for p, shard, chunk in zip(params, shards, chunks, strict=True):
            full = _padded(p.grad if p.grad is not None else torch.zeros_like(p), chunk * n)
            out = torch.empty(chunk, dtype=full.dtype)
            REAL["reduce_scatter_tensor"](out, full, group=group)
            shard.grad = out.div_(n)


def _gather_into_model(params, shards, chunks, group, n: int) -> None:
    with torch.no_grad():
        for p, shard, chunk in zip(params, shards, chunks, strict=True):
            full = torch.empty(chunk * n, dtype=shard.dtype)
            REAL["all_gather_into_tensor"](full, shard.detach().contiguous(), group=group)
            p.copy_(full[: p.numel()].view_as(p))


def _one_step(model, optimizer, batch) -> None:
    optimizer.zero_grad()
    lm_loss(model, batch.tokens, batch.targets).backward()
    optimizer.step()
