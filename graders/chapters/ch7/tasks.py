"""Chapter 7 worker tasks.

The schedule and bubble functions are pure, but they are student code, so they run in a
worker (a world of one rank) like everything else; the driver only sees the plain lists and
numbers they return. The executor runs in a real world: group rank s holds stage s of the
kit's model, wrapped in :class:`MeteredStage`; hooks on the stage (:func:`meter_stage`) record
the order of its forwards and backwards and the microbatches whose saved activations are alive,
and keep a note of the stage's progress for hang reports.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from graders.chapters.ch7.simulator import describe_need, inputs_of, label
from graders.training.schedule_meter import ScheduleMeter
from graders.training.tiny_lm import build_pipeline
from graders.world.task import task
from graders.world.values import plain


@task("ch7.gpipe_schedule")
def gpipe_schedule(ctx, case):
    with ctx.student_code() as student:
        return plain(student.gpipe_schedule(case.p, case.m))


@task("ch7.one_f_one_b_schedule")
def one_f_one_b_schedule(ctx, case):
    with ctx.student_code() as student:
        return plain(student.one_f_one_b_schedule(case.p, case.m))


@task("ch7.interleaved_1f1b_schedule")
def interleaved_1f1b_schedule(ctx, case):
    with ctx.student_code() as student:
        return plain(student.interleaved_1f1b_schedule(case.p, case.m, case.v))


@task("ch7.bubble_fraction")
def bubble_fraction(ctx, case):
    with ctx.student_code() as student:
        return plain(student.bubble_fraction(case.name, case.p, case.m, v=case.v))


# -- the executor ---------------------------------------------------------------------------------


class MeteredStage(nn.Module):
    """The stage module the student receives: the kit's stage (``inner``), called as is."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)


def meter_stage(inner: nn.Module, note, stage: int, p: int, actions) -> ScheduleMeter:
    """A :class:`ScheduleMeter` on ``inner``, whoever calls it (the wrapper or ``stage.inner``),
    that also keeps a progress note after each forward and backward (``note``, for the hang
    report): what the stage did, and what its schedule has it do next."""

    def progress(_key: str, record: dict) -> None:
        done = record["forwards"] + record["backwards"]
        text = f"stage {stage}: {record['forwards']} forward(s) and {record['backwards']} backward(s) done"
        if done < len(actions):
            kind, mb = actions[done][:2]
            action = (kind, mb, 0)
            needs = [n for n in inputs_of(stage, action, p, 1) if n[1] != stage]
            text += f"; next in its schedule: {label(action)}"
            if needs:
                text += f", which needs {describe_need(needs[-1], stage)}"
        note(text)

    meter = ScheduleMeter(on_event=progress)
    meter.watch(inner, "stage")
    progress("stage", {"forwards": 0, "backwards": 0})
    return meter


def _gradients(module: nn.Module) -> dict:
    return {
        name: None if p.grad is None else p.grad.detach().clone() for name, p in module.named_parameters()
    }


@task("ch7.run_pipeline")
def run_pipeline(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    stage = ctx.group_rank(case.group)
    inner = build_pipeline(case.seed, case.p, dtype=getattr(torch, case.dtype))[stage]
    meter = meter_stage(inner, ctx.note, stage, case.p, case.schedule[stage])
    metered = MeteredStage(inner)
    schedule = [list(row) for row in case.schedule]
    microbatches = [tuple(t.clone() for t in case.microbatch(mb)) for mb in range(case.m)]
    with ctx.student_code() as student:
        returned = student.run_pipeline(metered, schedule, microbatches, F.mse_loss, group)
    return {"returned": plain(returned), "grads": _gradients(inner), **meter.read()["stage"]}
