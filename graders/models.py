"""A small GPT block, on one device: the reference that parallel versions are compared with.

Activations are ``[s, b, h]`` (sequence, batch, hidden), Megatron's layout. ``MLPBlock`` and
``AttentionBlock`` are pre-LayerNorm residual sublayers; ``GPTBlock`` is one of each. Their
``state_dict()`` names (``ln.*``, ``fc1.*``, ``fc2.*``; ``q.*``, ``k.*``, ``v.*``, ``proj.*``)
are the contract a parallel block is built from. ``build_*`` make them with weights drawn
from a seed, in any dtype.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class MLPBlock(nn.Module):
    """``x + dropout(fc2(gelu(fc1(ln(x)))))``."""

    def __init__(self, hidden: int, ffn_hidden: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, ffn_hidden)
        self.fc2 = nn.Linear(ffn_hidden, hidden)
        self.dropout = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = F.gelu(self.fc1(self.ln(x)))
        return x + F.dropout(self.fc2(hidden), p=self.dropout, training=self.training)


class AttentionBlock(nn.Module):
    """``x + dropout(proj(causal attention of q, k, v of ln(x))))`` with ``heads`` heads;
    head ``i`` uses features ``i·d … (i+1)·d`` of q, k and v (``d = hidden / heads``)."""

    def __init__(self, hidden: int, heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.heads, self.head_dim, self.dropout = heads, hidden // heads, dropout
        self.ln = nn.LayerNorm(hidden)
        self.q, self.k, self.v = (
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
        )
        self.proj = nn.Linear(hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s, b, h = x.shape
        z = self.ln(x)

        def split(t: torch.Tensor) -> torch.Tensor:  # [s, b, h] -> [b, heads, s, d]
            return t.reshape(s, b, self.heads, self.head_dim).permute(1, 2, 0, 3)

        q, k, v = split(self.q(z)), split(self.k(z)), split(self.v(z))
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.head_dim**-0.5
        future = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
        y = scores.masked_fill(future, float("-inf")).softmax(dim=-1) @ v
        y = y.permute(2, 0, 1, 3).reshape(s, b, h)
        return x + F.dropout(self.proj(y), p=self.dropout, training=self.training)


class GPTBlock(nn.Module):
    """One transformer block: attention, then the MLP, each with its residual."""

    def __init__(self, hidden: int, heads: int, ffn_hidden: int | None = None, dropout: float = 0.0) -> None:
        super().__init__()
        self.attention = AttentionBlock(hidden, heads, dropout)
        self.mlp = MLPBlock(hidden, ffn_hidden or 4 * hidden, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.attention(x))


def seeded(block: nn.Module, seed: int, dtype: torch.dtype = torch.float32) -> nn.Module:
    """``block`` in ``dtype`` with every parameter redrawn from ``seed`` (LayerNorm weights
    near 1, everything else small and normal), the same on every process."""
    generator = torch.Generator().manual_seed(seed)
    block = block.to(dtype)
    with torch.no_grad():
        for name, p in block.named_parameters():
            noise = torch.randn(p.shape, generator=generator, dtype=torch.float64)
            scale = 1 / math.sqrt(p.shape[-1]) if p.dim() > 1 else 0.1
            base = 1.0 if name.endswith("ln.weight") else 0.0
            p.copy_(base + scale * noise)
    return block


def build_mlp(hidden: int, ffn_hidden: int, *, seed: int = 0, dtype=torch.float32, dropout=0.0) -> MLPBlock:
    return seeded(MLPBlock(hidden, ffn_hidden, dropout), seed, dtype)


def build_attention(
    hidden: int, heads: int, *, seed: int = 0, dtype=torch.float32, dropout=0.0
) -> AttentionBlock:
    return seeded(AttentionBlock(hidden, heads, dropout), seed, dtype)


def build_gpt_block(hidden: int, heads: int, *, seed: int = 0, dtype=torch.float32) -> GPTBlock:
    return seeded(GPTBlock(hidden, heads), seed, dtype)


def state_of(block: nn.Module) -> dict[str, torch.Tensor]:
    """The block's parameters as plain detached copies, by ``state_dict`` name."""
    return {name: t.detach().clone() for name, t in block.state_dict().items()}
