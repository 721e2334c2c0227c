"""Chapter 10's single-device references, written out token by token.

:func:`route` is the router as the chapter's README states it, with loops instead of one-hot
algebra: rank each token's experts by logit (ties to the lower index), fill every expert's
slots choice by choice and token by token, and weigh each kept slot by its gate. It is
differentiable (the gates are read from the softmax), so the driver's gradients come from
autograd over it. :class:`ReferenceRouter` wraps it as a module: the layer tasks hand it to the
student's layers in place of their own router, so that a router bug costs the router's points
only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class Routing:
    dispatch: torch.Tensor  # [T, E, C] bool
    combine: torch.Tensor  # [T, E, C]
    experts: torch.Tensor  # [T, k] int64
    aux_loss: torch.Tensor
    z_loss: torch.Tensor


def ranked_experts(logits: torch.Tensor, k: int) -> list[list[int]]:
    """Each token's ``k`` best experts, by logit, the lower index first among equals."""
    rows = logits.detach().tolist()
    return [sorted(range(len(row)), key=lambda e, row=row: (-row[e], e))[:k] for row in rows]


def route(x: torch.Tensor, weight: torch.Tensor, k: int, capacity_factor: float, normalize: bool) -> Routing:
    tokens, experts = x.shape[0], weight.shape[0]
    logits = x @ weight.t()
    probs = torch.softmax(logits, dim=-1)
    slots = math.ceil(capacity_factor * tokens * k / experts)
    chosen = ranked_experts(logits, k)

    gates = []  # gates[t][j]: the weight of token t's j-th choice
    for t in range(tokens):
        picked = torch.stack([probs[t, e] for e in chosen[t]])
        gates.append(picked / picked.sum() if normalize else picked)

    filled = [0] * experts
    places, values = [], []
    for j in range(k):
        for t in range(tokens):
            e = chosen[t][j]
            if filled[e] < slots:
                places.append((t, e, filled[e]))
                values.append(gates[t][j])
                filled[e] += 1
    dispatch = torch.zeros(tokens, experts, slots, dtype=torch.bool)
    combine = torch.zeros(tokens, experts, slots, dtype=x.dtype)
    if places:
        index = tuple(torch.tensor(axis) for axis in zip(*places, strict=True))
        dispatch[index] = True
        combine = combine.index_put(index, torch.stack(values))

    picks = torch.zeros(experts, dtype=x.dtype)
    for row in chosen:
        for e in row:
            picks[e] += 1
    fraction = picks / (tokens * k)
    aux_loss = experts * (fraction * probs.mean(dim=0)).sum()
    z_loss = (torch.logsumexp(logits, dim=-1) ** 2).mean()
    return Routing(dispatch, combine, torch.tensor(chosen, dtype=torch.int64), aux_loss, z_loss)


class ReferenceRouter(nn.Module):
    """The kit's router, for the layers' tasks: the student's layer routes with it."""

    def __init__(self, weight: torch.Tensor, k: int, capacity_factor: float, normalize: bool):
        super().__init__()
        self.weight = nn.Parameter(weight.detach().clone())
        self.num_experts, self.k = weight.shape[0], k
        self.capacity_factor, self.normalize = capacity_factor, normalize

    def forward(self, x: torch.Tensor) -> Routing:
        return route(x, self.weight, self.k, self.capacity_factor, self.normalize)


def expert(x: torch.Tensor, weights) -> torch.Tensor:
    w1, b1, w2, b2 = weights
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


def moe(x: torch.Tensor, router_weight: torch.Tensor, experts, k, capacity_factor, normalize):
    """``(output, routing)``: every token's kept choices, each run through its expert alone."""
    routing = route(x, router_weight, k, capacity_factor, normalize)
    rows = []
    for t in range(x.shape[0]):
        row = torch.zeros_like(x[t])
        for e, c in routing.dispatch[t].nonzero().tolist():
            row = row + routing.combine[t, e, c] * expert(x[t : t + 1], experts[e])[0]
        rows.append(row)
    return torch.stack(rows), routing


def router_values(case) -> dict:
    """The router's outputs on the case, and the gradients the router task takes."""
    x = case.x.clone().requires_grad_()
    weight = case.weight.clone().requires_grad_()
    routing = route(x, weight, case.k, case.capacity_factor, case.normalize)
    values = {
        "experts": routing.experts,
        "dispatch": routing.dispatch,
        "combine": routing.combine.detach(),
        "aux_loss": routing.aux_loss.detach(),
        "z_loss": routing.z_loss.detach(),
    }
    combine_loss = (routing.combine.sum(dim=-1) * case.combine_grad).sum()
    values["weight_grad"], values["input_grad"] = _grads(combine_loss, (weight, x))
    a, b = case.loss_weights
    (values["loss_weight_grad"],) = _grads(a * routing.aux_loss + b * routing.z_loss, (weight,))
    return values


def _grads(output: torch.Tensor, inputs) -> tuple:
    grads = torch.autograd.grad(output, inputs, allow_unused=True, retain_graph=True)
    return tuple(torch.zeros_like(t) if g is None else g for g, t in zip(grads, inputs, strict=True))


def layer_values(x, grad, router_weight, experts, k, capacity_factor, normalize) -> dict:
    """Output, routing and every gradient of one device's MoE layer on ``x``."""
    x = x.clone().requires_grad_()
    router_weight = router_weight.clone().requires_grad_()
    experts = [tuple(t.clone().requires_grad_() for t in e) for e in experts]
    out, routing = moe(x, router_weight, experts, k, capacity_factor, normalize)
    params = [p for e in experts for p in e]
    grads = _grads((out * grad).sum(), (x, router_weight, *params))
    return {
        "output": out.detach(),
        "dispatch": routing.dispatch,
        "input_grad": grads[0],
        "router_grad": grads[1],
        "expert_grads": [list(grads[2 + 4 * e : 6 + 4 * e]) for e in range(len(experts))],
    }


def layer_case_values(case) -> dict:
    return layer_values(
        case.x, case.grad, case.router, case.experts, case.k, case.capacity_factor, case.normalize
    )


def expert_parallel_values(case) -> list[dict]:
    """Per group rank: its own single-device layer's values, with every expert's gradient summed
    over the ranks (each expert sees every rank's tokens)."""
    per_rank = [
        layer_values(x, g, case.router, case.experts, case.k, case.capacity_factor, case.normalize)
        for x, g in zip(case.xs, case.grads, strict=True)
    ]
    summed = [
        [sum(values["expert_grads"][e][j] for values in per_rank) for j in range(4)]
        for e in range(case.num_experts)
    ]
    for values in per_rank:
        values["summed_expert_grads"] = summed
    return per_rank


def groups(world: int, ep: int, dp: int) -> list[list[int]]:
    return [[d * ep + e for d in range(dp)] for e in range(ep)]


def synced(case) -> list[dict]:
    """Per group rank: the router's gradient averaged over all ranks; each expert's summed over
    the ranks holding it, divided by all of them."""
    n = case.n
    router = sum(case.router_grads) / n
    out = []
    for i in range(n):
        holders = range(i % case.ep, n, case.ep)
        experts = [
            [sum(case.expert_grads[j][e][p] for j in holders) / n for p in range(4)]
            for e in range(case.experts_per_rank)
        ]
        out.append({"router": router, "experts": experts})
    return out
