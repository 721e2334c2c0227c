"""Chapter 11 worker tasks.

* ``rank_layout``: the student's ``RankLayout`` of the case: every rank's coordinates and the rank
  they give back, the groups of each dimension and of the case's combined dimensions.
* ``build_groups``: on every rank of a world of the layout's size, the student's groups (made
  from the student's ``RankLayout``); each returned group's ranks as torch sees them; then, if the
  ranks agree on who is in which group, an all-reduce of the ranks inside each group (the kit's
  own, on the student's groups). The groups graded code made are destroyed after the task.
* ``groups_crossing_nodes`` and ``best_order``: the student's answers.
"""

from __future__ import annotations

import contextlib
import gc

import torch
import torch.distributed as dist

from graders.chapters.ch11.cases import DIMS
from graders.chapters.ch11.framework import handed
from graders.comm.callers import GRADED_PACKAGE
from graders.comm.recorder import REAL
from graders.training.live_memory import LiveLedger
from graders.training.optimizer_watch import OptimizerWatch
from graders.training.schedule_meter import ScheduleMeter
from graders.world.task import task
from graders.world.values import plain


@task("ch11.rank_layout")
def rank_layout(ctx, case):
    with ctx.student_code() as student:
        layout = student.RankLayout(**case.layout)
        coords = [plain(layout.coords(rank)) for rank in range(case.size)]
        back = [plain(layout.rank(**c)) if isinstance(c, dict) else None for c in coords]
        single = {dim: plain(layout.groups(dim)) for dim in DIMS}
        combined = {dims: plain(layout.groups(dims)) for dims in case.combined}
        world = plain(layout.world_size)
    return {"coords": coords, "back": back, "single": single, "combined": combined, "world_size": world}


@task("ch11.build_groups")
def build_groups(ctx, case):
    with ctx.student_code("topology") as topology:
        layout = topology.RankLayout(**case.layout)
    with ctx.student_code() as student:
        made = student.build_groups(layout, case.entries)
    try:
        members = {
            entry: dist.get_process_group_ranks(made[entry])
            if isinstance(made, dict) and entry in made
            else None
            for entry in case.entries
        }
        everyone = [None] * ctx.world_size
        REAL["all_gather_object"](everyone, members)
        sums = {}
        if all(_agree(everyone, entry) for entry in case.entries):
            for entry in case.entries:
                value = torch.tensor([float(ctx.rank)])
                REAL["all_reduce"](value, group=made[entry])
                sums[entry] = float(value)
        return {"members": members, "sums": sums}
    finally:
        ctx.barrier()
        for group in ctx.groups_made():
            dist.destroy_process_group(group)


def _agree(everyone: list[dict], entry: str) -> bool:
    """Whether every rank has a group for ``entry`` and the members of each group say the same."""
    for rank, members in enumerate(everyone):
        mine = members.get(entry)
        if mine is None or rank not in mine:
            return False
        if any(everyone[other].get(entry) != mine for other in mine):
            return False
    return True


@task("ch11.groups_crossing_nodes")
def groups_crossing_nodes(ctx, case):
    with ctx.student_code("topology") as topology:
        layout = topology.RankLayout(**case.layout)
    with ctx.student_code() as student:
        return plain(student.groups_crossing_nodes(layout, case.gpus_per_node))


@task("ch11.best_order")
def best_order(ctx, case):
    with ctx.student_code() as student:
        sizes = {dim: getattr(case, dim) for dim in DIMS}
        return plain(student.best_order(**sizes, gpus_per_node=case.gpus_per_node))


# -- planner.py ---------------------------------------------------------------------------------------

PLAN_FIELDS = ("tp", "cp", "pp", "dp", "ep", "micro_batch", "zero")


def _configs(student, case):
    return student.ModelConfig(**case.model), student.ClusterConfig(**case.cluster)


@task("ch11.memory_per_gpu")
def memory_per_gpu(ctx, case):
    with ctx.student_code() as student:
        model, cluster = _configs(student, case)
        return plain(student.memory_per_gpu(student.Plan(**case.plan), model, cluster, case.global_batch))


@task("ch11.step_time")
def step_time(ctx, case):
    with ctx.student_code() as student:
        model, cluster = _configs(student, case)
        return plain(student.step_time(student.Plan(**case.plan), model, cluster, case.global_batch))


@task("ch11.plan")
def plan(ctx, case):
    with ctx.student_code() as student:
        model, cluster = _configs(student, case)
        try:
            chosen = student.plan(model, cluster, case.global_batch)
        except ValueError as exc:
            return {"raised": str(exc)[:300]}
        if chosen is None:
            return {"returned": None}
        return {"returned": {name: plain(getattr(chosen, name, None)) for name in PLAN_FIELDS}}


# -- framework.py: the capstone -----------------------------------------------------------------------

#: ten training steps on up to 8 processes sharing two cores take a few task deadlines' worth
TRAINING_DEADLINE_FACTOR = 4


@task("ch11.trainer_3d", reuse=True, deadline_factor=TRAINING_DEADLINE_FACTOR)
def trainer_3d(ctx, case):
    """The student's ``Trainer3D`` on every rank, ``case.steps`` steps of the case's global batches:
    each step's returned loss, and whether the state handed over came back unchanged. The trace
    is cut at ``constructed`` and at every ``step_end``; the groups graded code made are destroyed
    after."""
    return _train_3d(ctx, case, ledger=None)


@task("ch11.trainer_3d", reuse=True, deadline_factor=TRAINING_DEADLINE_FACTOR)
def trainer_3d_measured(ctx, case):
    """As :func:`trainer_3d`, under the live ledger entered before the import: what the rank kept
    alive between steps (the least over the steps after the first) and the peak of the run."""
    return _train_3d(ctx, case, ledger=LiveLedger(ctx.location.graded_root, python_heap="steady"))


#: the student's attention block (chapter 6), which every layer of a stage runs through once per
#: microbatch forward and backward
ATTENTION_BLOCK = (f"{GRADED_PACKAGE}.ch6.blocks", "ParallelAttention")


def _meter_blocks(ledger: LiveLedger) -> ScheduleMeter:
    """A :class:`ScheduleMeter` on every attention block the trainer built on this rank (found among
    the live objects, not through the trainer): each must run the stage's 1F1B order."""
    meter = ScheduleMeter()
    with ledger.paused():
        blocks = [
            o
            for o in gc.get_objects()
            if isinstance(o, torch.nn.Module) and (type(o).__module__, type(o).__name__) == ATTENTION_BLOCK
        ]
    for i, block in enumerate(blocks):
        meter.watch(block, f"block {i}")
    return meter


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal to the bit (NaN included: a poisoned entry handed back unchanged is unchanged)."""
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a.view(torch.uint8), b.view(torch.uint8))


def _train_3d(ctx, case, ledger: LiveLedger | None):
    state = handed.state_for(case, ctx.rank, case.state())
    batches = [handed.batch_for(case, ctx.rank, *batch) for batch in case.batches()]
    fingerprint = [t.clone() for t in state.values()]
    optimizers = OptimizerWatch(case.optimizer_cls)
    ctx.release_buffers()
    losses, kept = [], []
    finished = False
    try:
        with ledger or contextlib.nullcontext(), ctx.student_code() as student:
            trainer = student.Trainer3D(
                state,
                case.heads,
                tp=case.tp,
                pp=case.pp,
                dp=case.dp,
                microbatches=case.microbatches,
                optimizer_cls=optimizers.cls,
                **case.hparams,
            )
            ctx.mark("constructed")
            meter = _meter_blocks(ledger) if ledger is not None else None
            for step, (tokens, targets) in enumerate(batches):
                ctx.note(f"step {step}")
                if ledger is not None:
                    ledger.enter("step", step=step)
                losses.append(plain(trainer.train_step(tokens, targets)))
                optimizers.step_ended()
                if ledger is not None:
                    with ledger.paused():
                        gc.collect(1)
                        kept.append(ledger.total)
                ctx.mark("step_end")
            del trainer
        unchanged = all(_same_bits(a, b) for a, b in zip(fingerprint, state.values(), strict=True))
        value = {"losses": losses, "unchanged": unchanged, "optimized": optimizers.report()}
        if ledger is not None:
            value["kept"] = min(kept[1:] or kept)
            value["peak"] = max(p.bytes for p in ledger.peaks.values())
            value["blocks"] = list(meter.read().values())
        finished = True
        return value
    finally:
        if finished:  # a rank that failed replies at once: its peers may be waiting on it, not here
            ctx.barrier()
            for group in ctx.groups_made():
                dist.destroy_process_group(group)
