# Generated from solutions/ch10/expert_parallel.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 10: expert parallelism. The experts of an :class:`MoELayer` are split over
``ep_group``: with ``E`` experts and ``p`` ranks, rank ``r`` holds experts ``r·E/p … (r+1)·E/p``.

Every rank routes its own tokens with the (replicated) router, exactly as the single-device
layer would route them. Then:

1. **Split sizes first.** Each rank tells every other rank how many of its tokens go to each of
   that rank's experts (one ``all_to_all_single`` of ``E`` int64 counts).
2. **Dispatch.** One ``all_to_all_single`` of variable size sends each kept token to the rank
   that holds its expert (only kept tokens: no padding to the capacity).
3. **Local experts.** Each rank runs its own experts only, on the tokens it received.
4. **Return.** The reverse ``all_to_all_single`` sends the results back, and each rank combines
   them with its combine weights.

The output on each rank equals ``MoELayer(x)`` of the same layer on that rank's ``x``; the
gradient of each local expert is the sum of what every rank's tokens contribute to it.
Collectives of ``torch.distributed`` are allowed; ``torch.distributed.nn`` is not, so the
all-to-all's backward (the reverse all-to-all) is a ``torch.autograd.Function`` of your own.
"""

import copy

import torch
import torch.distributed as dist
from torch import nn

from .moe_layer import MoELayer
from .router import Routing


class ExpertParallelMoE(nn.Module):
    def __init__(self, layer: MoELayer, ep_group=None):
        super().__init__()
        self.group = ep_group
        p, r = dist.get_world_size(ep_group), dist.get_rank(ep_group)
        self.num_experts = len(layer.experts)
        self.per_rank = self.num_experts // p
        self.first = r * self.per_rank
        self.router = copy.deepcopy(layer.router)
        self.experts = nn.ModuleList(
            copy.deepcopy(layer.experts[e]) for e in range(self.first, self.first + self.per_rank)
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, Routing]:
        raise NotImplementedError("[dtlab TODO] ch10/expert_parallel.py: implement ExpertParallelMoE.forward")
