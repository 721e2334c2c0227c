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

### BEGIN SOLUTION


class _AllToAll(torch.autograd.Function):
    """Rows of ``x`` split by ``send`` go to each rank; ``receive`` rows come from each rank."""

    @staticmethod
    def forward(ctx, x, send, receive, group):
        ctx.send, ctx.receive, ctx.group = send, receive, group
        out = x.new_empty((sum(receive), *x.shape[1:]))
        dist.all_to_all_single(out, x.contiguous(), receive, send, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        back = grad.new_empty((sum(ctx.send), *grad.shape[1:]))
        dist.all_to_all_single(back, grad.contiguous(), ctx.send, ctx.receive, group=ctx.group)
        return back, None, None, None


### END SOLUTION


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
        ### BEGIN SOLUTION
        p, per = dist.get_world_size(self.group), self.per_rank
        routing = self.router(x)
        dispatch = routing.dispatch.to(x.dtype)
        slots = torch.einsum("tec,th->ech", dispatch, x)  # [experts, capacity, hidden]
        counts = routing.dispatch.sum(dim=(0, 2))  # kept tokens per expert (slots fill from 0)
        kept = counts.tolist()
        outgoing = torch.cat([slots[e, : kept[e]] for e in range(self.num_experts)])

        incoming_counts = torch.empty_like(counts)
        dist.all_to_all_single(incoming_counts, counts, group=self.group)  # [source, local expert]
        incoming_counts = incoming_counts.view(p, per)
        send = counts.view(p, per).sum(dim=1).tolist()
        receive = incoming_counts.sum(dim=1).tolist()
        received = _AllToAll.apply(outgoing, send, receive, self.group)

        # rows arrive source by source, each source's rows expert by expert
        pieces = received.split(incoming_counts.flatten().tolist())
        by_expert = [torch.cat(pieces[e::per]) for e in range(per)]
        done = [expert(rows) for expert, rows in zip(self.experts, by_expert, strict=True)]
        sizes = incoming_counts.t()  # [local expert, source]
        answers = [list(rows.split(sizes[e].tolist())) for e, rows in enumerate(done)]
        back = torch.cat([answers[e][s] for s in range(p) for e in range(per)])
        returned = _AllToAll.apply(back, receive, send, self.group)

        capacity = slots.shape[1]
        rows = returned.split(kept)
        outputs = torch.stack([torch.cat([r, r.new_zeros(capacity - len(r), r.shape[1])]) for r in rows])
        return torch.einsum("tec,ech->th", routing.combine, outputs), routing
        ### END SOLUTION
