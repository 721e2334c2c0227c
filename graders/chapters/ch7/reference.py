"""Chapter 7 references, computed in the driver (never by student code)."""

from __future__ import annotations

from fractions import Fraction

import torch
import torch.nn.functional as F
from torch import nn

from graders.chapters.ch7 import torch_schedules
from graders.chapters.ch7.cases import BubbleCase, PipelineCase
from graders.chapters.ch7.simulator import simulate
from graders.training.models import build_pipeline


def bubble_formula(case: BubbleCase) -> float:
    """(p - 1) / (m + p - 1); with v interleaved chunks (p - 1) / (v * m + p - 1)."""
    chunks = case.v if case.name == "interleaved" else 1
    return (case.p - 1) / (chunks * case.m + case.p - 1)


def measured_bubble(case: BubbleCase, f_cost: int = 1, b_cost: int = 2) -> Fraction:
    """The idle share of PyTorch's own schedule for ``case``, run by the dependency simulator
    with a backward twice as long as a forward (the share does not depend on the costs)."""
    schedule = torch_schedules.BY_NAME[case.name](case.p, case.m, case.v)
    v = case.v if case.name == "interleaved" else 1
    return simulate(schedule, case.p, case.m, v, f_cost, b_cost).bubble_fraction


def pipeline_gradients(case: PipelineCase) -> tuple[torch.Tensor, list[dict]]:
    """Single-device training step on the full batch: (mean loss, per-stage gradients by name).

    The model is the stages of the pipeline chained on one device; the loss is the mean
    squared error over the whole batch, which is the mean of the equal-sized microbatch losses.
    """
    stages = build_pipeline(case.seed, case.p, dtype=getattr(torch, case.dtype))
    model = nn.Sequential(*stages)
    loss = F.mse_loss(model(case.inputs), case.targets)
    loss.backward()
    grads = [
        {name: None if p.grad is None else p.grad.detach().clone() for name, p in stage.named_parameters()}
        for stage in stages
    ]
    return loss.detach(), grads
