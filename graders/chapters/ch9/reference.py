"""Chapter 9's single-device references: full attention with its log-sum-exp; the positions each
rank holds in the ring's layouts; every rank's shard of full attention and of its gradients (what
Ulysses and Ring Attention must return); Ulysses' all-to-all bytes."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def attention(q, k, v, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """``(out, lse)`` of full attention on ``[..., seq, dim]`` tensors."""
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    if causal:
        seq = q.shape[-2]
        scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    return out, torch.logsumexp(scores, dim=-1)


def positions(rank: int, world: int, length: int, layout: str) -> torch.Tensor:
    """Where in the whole sequence the ``length`` positions of ``rank`` lie: one contiguous chunk,
    or (zigzag) half chunks ``rank`` and ``2·world-1-rank`` of ``2·world``."""
    if layout == "contiguous":
        return torch.arange(rank * length, (rank + 1) * length)
    half = length // 2
    order = torch.arange(2 * world * half).view(2 * world, half)
    return torch.cat([order[rank], order[2 * world - 1 - rank]])


def sharded_attention(case) -> list[dict]:
    """Per group rank: its shard of the whole sequence's attention and of the gradients."""
    q, k, v = (t.detach().clone().requires_grad_() for t in case.whole[:3])
    heads_first = [t.transpose(0, 1) for t in (q, k, v)]  # [h, s, d]
    out = F.scaled_dot_product_attention(*heads_first, is_causal=case.causal).transpose(0, 1)
    out.backward(case.whole[3])
    return [
        {"output": case.shard(out.detach(), i), "grads": [case.shard(t.grad, i) for t in (q, k, v)]}
        for i in range(case.n)
    ]


def ulysses_bytes(case) -> tuple[int, int]:
    """(bytes of the stacked q, k, v all-to-all, bytes of the output's) on every rank."""
    size = case.seq_per_rank * case.heads * case.dim * case.whole[0].element_size()
    return 3 * size, size
