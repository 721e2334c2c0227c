# Generated from solutions/ch10/router.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 10: the top-k router of a Mixture-of-Experts layer.

The router scores every token against every expert, keeps each token's ``k`` best experts, and
enforces each expert's *capacity*: at most ``C = ceil(capacity_factor · tokens · k / experts)``
tokens per expert. It returns the two tensors the layer needs:

* ``dispatch[t, e, c]`` (bool): token ``t`` sits in slot ``c`` of expert ``e``;
* ``combine[t, e, c]`` (float): the weight of that slot's output in token ``t``'s result.

Conventions:

* ``x`` is ``[tokens, hidden]``; the router's weight is ``[experts, hidden]`` (no bias), so the
  logits are ``x @ weight.T``, ``[tokens, experts]``. Probabilities are the softmax over experts.
* **Ranking.** A token's experts are ranked by their logits, best first (the softmax keeps the
  order). **Ties:** among equal logits the lower expert index wins (a stable descending sort),
  so the choice is deterministic.
* **Position priority.** Slots are filled choice by choice, then token by token: every token's
  first choice in token order, then every token's second choice, and so on. A token whose
  expert is full is dropped from that expert (its slot weight is lost).
* **Gates.** The gate of a choice is its probability; with ``normalize`` the ``k`` gates of a
  token are divided by their sum (before any drop), so a token that keeps all ``k`` choices has
  combine weights summing to 1.
* **Losses.** The Switch auxiliary loss is ``E · Σ_e f_e · P_e`` with ``f_e`` the fraction of
  the ``tokens · k`` choices that picked expert ``e`` (before capacity) and ``P_e`` the mean
  probability of ``e``: exactly 1 for uniform routing. The ST-MoE z-loss is the mean over tokens
  of ``logsumexp(logits)²``.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class Routing:
    """What the router returns for a batch of tokens."""

    dispatch: torch.Tensor  # [tokens, experts, capacity] bool
    combine: torch.Tensor  # [tokens, experts, capacity] float, differentiable
    experts: torch.Tensor  # [tokens, k] int64: each token's chosen experts, best first
    aux_loss: torch.Tensor  # scalar, differentiable
    z_loss: torch.Tensor  # scalar, differentiable


def capacity(tokens: int, num_experts: int, k: int, capacity_factor: float) -> int:
    """Slots per expert: ``ceil(capacity_factor · tokens · k / experts)``."""
    raise NotImplementedError("[dtlab TODO] ch10/router.py: implement capacity")


class TopKRouter(nn.Module):
    def __init__(
        self,
        hidden: int,
        num_experts: int,
        k: int = 2,
        capacity_factor: float = 1.25,
        normalize: bool = True,
        *,
        weight: torch.Tensor | None = None,
    ):
        super().__init__()
        self.num_experts, self.k = num_experts, k
        self.capacity_factor, self.normalize = capacity_factor, normalize
        initial = torch.randn(num_experts, hidden) * hidden**-0.5 if weight is None else weight.detach()
        self.weight = nn.Parameter(initial.clone())

    def forward(self, x: torch.Tensor) -> Routing:
        raise NotImplementedError("[dtlab TODO] ch10/router.py: implement TopKRouter.forward")
