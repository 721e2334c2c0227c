"""Chapter 7 worker tasks.

The schedule and bubble functions are pure, but they are student code, so they run in a
worker (a world of one rank) like everything else; the driver only sees the plain lists and
numbers they return. The executor runs in a real world: group rank s holds stage s of the
kit's model, wrapped in :class:`MeteredStage`, which counts the microbatches whose saved
activations are alive and keeps a note of the stage's progress for hang reports.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from graders.chapters.ch7.simulator import describe_need, inputs_of, label
from graders.training.models import build_pipeline
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
    """A tensor autograd saved for backward, tagged with the forward call that saved it."""

    __slots__ = ("tensor", "forward", "meter")

    def __init__(self, tensor: torch.Tensor, forward: int, meter: MeteredStage) -> None:
        self.tensor, self.forward, self.meter = tensor, forward, meter
        meter._hold(forward)

    def __del__(self) -> None:
        self.meter._release(self.forward)


def _unpack(saved: _Saved) -> torch.Tensor:
    return saved.tensor


class MeteredStage(nn.Module):
    """The stage module the student receives: the kit's stage plus two meters.

    * ``peak``: the most forward calls whose saved activations were alive at once, measured
      with ``torch.autograd.graph.saved_tensors_hooks`` (a graph freed after its backward
      releases them);
    * a progress note (forwards run, backwards started, the schedule's next action), written
      after every forward and backward, for the hang report.
    """

    def __init__(self, inner: nn.Module, ctx, stage: int, p: int, actions) -> None:
        super().__init__()
        self.inner = inner
        self._ctx, self._stage, self._p, self._actions = ctx, stage, p, actions
        self._live: dict[int, int] = {}
        self.forwards = self.backwards = self.peak = 0
        self._progress()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        index = self.forwards
        self.forwards += 1
        with torch.autograd.graph.saved_tensors_hooks(lambda t: _Saved(t, index, self), _unpack):
            out = self.inner(x)
        if out.requires_grad:
            out.register_hook(self._backward_started)
        self._progress()
        return out

    def _backward_started(self, grad):
        self.backwards += 1
        self._progress()

    def _hold(self, forward: int) -> None:
        self._live[forward] = self._live.get(forward, 0) + 1
        self.peak = max(self.peak, len(self._live))

    def _release(self, forward: int) -> None:
        left = self._live.get(forward, 0) - 1
        if left > 0:
            self._live[forward] = left
        else:
            self._live.pop(forward, None)

    def _progress(self) -> None:
        done = self.forwards + self.backwards
        note = f"stage {self._stage}: {self.forwards} forward(s) and {self.backwards} backward(s) done"
        if done < len(self._actions):
            kind, mb = self._actions[done]
            action = (kind, mb, 0)
            needs = [n for n in inputs_of(self._stage, action, self._p, 1) if n[1] != self._stage]
            note += f"; next in its schedule: {label(action)}"
            if needs:
                note += f", which needs {describe_need(needs[-1], self._stage)}"
        self._ctx.note(note)


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
    metered = MeteredStage(inner, ctx, stage, case.p, case.schedule[stage])
    schedule = [list(row) for row in case.schedule]
    microbatches = [tuple(t.clone() for t in case.microbatch(mb)) for mb in range(case.m)]
    with ctx.student_code() as student:
        returned = student.run_pipeline(metered, schedule, microbatches, F.mse_loss, group)
    return {
        "returned": plain(returned),
        "grads": _gradients(inner),
        "peak": metered.peak,
        "forwards": metered.forwards,
    }
