"""Chapter 10: a Mixture-of-Experts layer on one device.

``MoELayer`` routes each token of ``x`` (``[tokens, hidden]``) with a :class:`TopKRouter`, runs
every expert (an MLP ``fc2(gelu(fc1(x)))``) on the slots it was given, and sums each token's
expert outputs weighted by its combine weights. A token dropped by every expert gets zeros
(the residual connection around the layer carries it). ``forward`` returns the output and the
router's :class:`Routing` (its losses included).
"""

import torch
import torch.nn.functional as F
from torch import nn

from .router import Routing, TopKRouter


class Expert(nn.Module):
    def __init__(self, hidden: int, ffn_hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(hidden, ffn_hidden)
        self.fc2 = nn.Linear(ffn_hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


class MoELayer(nn.Module):
    def __init__(
        self,
        hidden: int,
        ffn_hidden: int,
        num_experts: int,
        k: int = 2,
        capacity_factor: float = 1.25,
        normalize: bool = True,
    ):
        super().__init__()
        self.router = TopKRouter(hidden, num_experts, k, capacity_factor, normalize)
        self.experts = nn.ModuleList(Expert(hidden, ffn_hidden) for _ in range(num_experts))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, Routing]:
        ### BEGIN SOLUTION
        routing = self.router(x)
        slots = torch.einsum("tec,th->ech", routing.dispatch.to(x.dtype), x)  # [experts, capacity, hidden]
        outputs = torch.stack([expert(slots[e]) for e, expert in enumerate(self.experts)])
        return torch.einsum("tec,ech->th", routing.combine, outputs), routing
        ### END SOLUTION
