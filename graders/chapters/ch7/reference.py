"""Chapter 7 references, computed in the driver (never by student code).

* the bubble formula, and the idle share measured on PyTorch's own schedules;
* single-device gradients of the pipeline's model on the whole batch;
* PyTorch's own schedules as action lists. ``torch.distributed.pipelining`` computes each
  schedule's per-rank order when a schedule object is built, from a few attributes. Building
  the real object needs pipeline stages and a process group, so :func:`gpipe` and
  :func:`interleaved_1f1b` call the order-building methods of torch 2.13 on a plain namespace
  holding just those attributes. They read private methods: ``tests/chapters/test_ch7.py`` checks that
  they still work and give valid schedules. Torch's actions are ``_Action(stage_index,
  computation_type, microbatch_index)`` with a global stage index; stage index ``k`` lives on
  rank ``k % p`` as chunk ``k // p``.
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch import nn

from graders.chapters.ch7.cases import BubbleCase, PipelineCase
from graders.chapters.ch7.simulator import Action, simulate
from graders.training.tiny_lm import build_pipeline


def bubble_formula(case: BubbleCase) -> float:
    """(p - 1) / (m + p - 1); with v interleaved chunks (p - 1) / (v * m + p - 1)."""
    chunks = case.v if case.name == "interleaved" else 1
    return (case.p - 1) / (chunks * case.m + case.p - 1)


def measured_bubble(case: BubbleCase, f_cost: int = 1, b_cost: int = 2) -> Fraction:
    """The idle share of PyTorch's own schedule for ``case``, run by the dependency simulator
    with a backward twice as long as a forward (the share does not depend on the costs)."""
    schedule = TORCH_SCHEDULES[case.name](case.p, case.m, case.v)
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


# -- PyTorch's own schedules -----------------------------------------------------------------------

COMPUTE = {"F": "F", "B": "B"}


def _actions(order: dict[int, list] | list[list], p: int) -> list[list[Action]]:
    rows = [order[r] for r in range(p)]
    schedule = []
    for rank, row in enumerate(rows):
        actions = []
        for action in row:
            if action is None or action.computation_type.value not in COMPUTE:
                continue  # idle slots and gradient reductions
            stage_index = action.stage_index
            if stage_index % p != rank:
                raise AssertionError(f"torch placed stage {stage_index} on rank {rank}")
            actions.append((action.computation_type.value, action.microbatch_index, stage_index // p))
        schedule.append(actions)
    return schedule


def gpipe(p: int, m: int) -> list[list[Action]]:
    from torch.distributed.pipelining.schedules import ScheduleGPipe

    state = SimpleNamespace(_num_stages=p, _n_microbatches=m)
    return _actions(ScheduleGPipe._get_pipeline_order(state), p)


def one_f_one_b(p: int, m: int) -> list[list[Action]]:
    """A one-chunk ``ScheduleInterleaved1F1B``: torch's 1F1B family with a single local stage.

    torch 2.13's ``Schedule1F1B._get_pipeline_order`` is not used: on the last rank its order
    skips microbatch 0 and runs a forward of microbatch m (the order is only drawn by torch,
    not executed). The one-chunk interleaved order warms up with 2(p - s - 1) forwards
    instead of p - s - 1 and has the same bubble.
    """
    return interleaved_1f1b(p, m, 1)


def interleaved_1f1b(p: int, m: int, v: int) -> list[list[Action]]:
    """torch's ``ScheduleInterleaved1F1B`` with ``v`` local stages per rank.

    torch accepts ``m`` when it is a multiple of its number of rounds ``max(1, m // p)``; the
    graders only compare where ``m`` is a multiple of ``p`` (Megatron-LM's rule), where a round
    is exactly ``p`` microbatches.
    """
    from torch.distributed.pipelining.schedules import ScheduleInterleaved1F1B

    rounds = max(1, m // p)
    if m % rounds:
        raise ValueError(f"ScheduleInterleaved1F1B needs m to be a multiple of {rounds}, got m={m}")
    state = SimpleNamespace(
        n_local_stages=v, pp_group_size=p, microbatches_per_round=m // rounds, _n_microbatches=m
    )
    order = [ScheduleInterleaved1F1B._calculate_single_rank_operations(state, rank) for rank in range(p)]
    return _actions(order, p)


TORCH_SCHEDULES = {
    "gpipe": lambda p, m, v: gpipe(p, m),
    "1f1b": lambda p, m, v: one_f_one_b(p, m),
    "interleaved": interleaved_1f1b,
}
