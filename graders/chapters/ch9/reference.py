"""Chapter 9's single-device references: full attention, with its log-sum-exp, and Ulysses'
values and all-to-all bytes."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def attention(q, k, v, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """``(out, lse)`` of full attention on ``[..., seq, dim]`` tensors."""
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scores = (q @ k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    if causal:
        seq = q.shape[-2]
        scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    return out, torch.logsumexp(scores, dim=-1)


def ulysses(case) -> list[dict]:
    """Per group rank: its chunk of the whole sequence's attention and of the gradients."""
    q, k, v = (torch.cat([qkv[j] for qkv in case.qs]).detach().requires_grad_() for j in range(3))
    heads_first = [t.transpose(0, 1) for t in (q, k, v)]  # [h, s, d]
    out = F.scaled_dot_product_attention(*heads_first, is_causal=case.causal).transpose(0, 1)
    out.backward(torch.cat(case.grads))
    chunk = case.seq_per_rank
    return [
        {
            "output": out.detach()[i * chunk : (i + 1) * chunk],
            "grads": [t.grad[i * chunk : (i + 1) * chunk] for t in (q, k, v)],
        }
        for i in range(case.n)
    ]


def ulysses_bytes(case) -> tuple[int, int]:
    """(bytes of the stacked q, k, v all-to-all, bytes of the output's) on every rank."""
    size = case.qs[0][0].numel() * case.qs[0][0].element_size()
    return 3 * size, size
