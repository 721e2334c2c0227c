"""Chapter 7 worker tasks.

The schedule and bubble functions are pure, but they are student code, so they run in a
worker (a world of one rank) like everything else; the driver only sees the plain lists and
numbers they return. The executor runs in a real world: group rank s holds stage s of the
kit's model, wrapped in :class:`MeteredStage`; hooks on the stage (:func:`meter_stage`) count
the microbatches whose saved activations are alive and keep a note of the stage's progress
for hang reports.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from graders.chapters.ch7.simulator import describe_need, inputs_of, label
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


class _Saved:
    """A tensor autograd saved for backward, tagged with the forward call that saved it; its
    end (the graph freed after its backward) is reported to ``release``."""

    __slots__ = ("tensor", "forward", "release")

    def __init__(self, tensor: torch.Tensor, forward: int, hold, release) -> None:
        self.tensor, self.forward, self.release = tensor, forward, release
        hold(forward)

    def __del__(self) -> None:
        self.release(self.forward)


def _unpack(saved: _Saved) -> torch.Tensor:
    return saved.tensor


class MeteredStage(nn.Module):
    """The stage module the student receives: the kit's stage (``inner``), called as is."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)


def meter_stage(inner: nn.Module, note, stage: int, p: int, actions):
    """Hooks on ``inner`` that measure, whoever calls it (the wrapper or ``stage.inner``):

    * the most forward calls whose saved activations were alive at once, with
      ``torch.autograd.graph.saved_tensors_hooks``;
    * the forwards run and the backwards started, and a progress note after each (``note``,
      for the hang report).

    Returns ``read()``, which gives those counts and whether the hooks are still in place. The
    counts live in this closure: nothing the graded code can reach by attribute holds them,
    nor the task's context.
    """
    live: dict[int, int] = {}
    counts = {"forwards": 0, "backwards": 0, "peak": 0}
    entered: list = []

    def hold(forward: int) -> None:
        live[forward] = live.get(forward, 0) + 1
        counts["peak"] = max(counts["peak"], len(live))

    def release(forward: int) -> None:
        left = live.get(forward, 0) - 1
        if left > 0:
            live[forward] = left
        else:
            live.pop(forward, None)

    def progress() -> None:
        done = counts["forwards"] + counts["backwards"]
        text = f"stage {stage}: {counts['forwards']} forward(s) and {counts['backwards']} backward(s) done"
        if done < len(actions):
            kind, mb = actions[done][:2]
            action = (kind, mb, 0)
            needs = [n for n in inputs_of(stage, action, p, 1) if n[1] != stage]
            text += f"; next in its schedule: {label(action)}"
            if needs:
                text += f", which needs {describe_need(needs[-1], stage)}"
        note(text)

    def before_forward(module, args):
        index = counts["forwards"]
        counts["forwards"] += 1
        hooks = torch.autograd.graph.saved_tensors_hooks(lambda t: _Saved(t, index, hold, release), _unpack)
        hooks.__enter__()
        entered.append(hooks)

    def backward_started(grad):
        counts["backwards"] += 1
        progress()

    def after_forward(module, args, out):
        if entered:
            entered.pop().__exit__(None, None, None)
        if isinstance(out, torch.Tensor) and out.requires_grad:
            out.register_hook(backward_started)
        progress()

    handles = [
        inner.register_forward_pre_hook(before_forward),
        inner.register_forward_hook(after_forward, always_call=True),
    ]

    def read() -> dict:
        intact = all(h.id in inner._forward_pre_hooks or h.id in inner._forward_hooks for h in handles)
        return {**counts, "meters_intact": intact}

    progress()
    return read


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
    read_meters = meter_stage(inner, ctx.note, stage, case.p, case.schedule[stage])
    metered = MeteredStage(inner)
    schedule = [list(row) for row in case.schedule]
    microbatches = [tuple(t.clone() for t in case.microbatch(mb)) for mb in range(case.m)]
    with ctx.student_code() as student:
        returned = student.run_pipeline(metered, schedule, microbatches, F.mse_loss, group)
    return {"returned": plain(returned), "grads": _gradients(inner), **read_meters()}
