"""A small GPT block, on one device: the reference that parallel versions are compared with.

Activations are ``[s, b, h]`` (sequence, batch, hidden), Megatron's layout. ``MLPBlock`` and
``AttentionBlock`` are pre-LayerNorm residual sublayers; ``GPTBlock`` is one of each. Their
``state_dict()`` names (``ln.*``, ``fc1.*``, ``fc2.*``; ``q.*``, ``k.*``, ``v.*``, ``proj.*``)
are the contract a parallel block is built from. ``build_*`` make them with weights drawn
from a seed, in any dtype.

``GPT`` is the whole model (token and position embeddings, ``layers`` blocks, a final LayerNorm
and an LM head, tied to the token embedding or not): tokens ``[s, b]`` in, logits ``[s, b, vocab]``
out. A block recomputes in backward what its ``recompute`` says (``"none"``, ``"selective"``: the
attention core, from q, k and v to the heads' output, as Megatron's selective recomputation;
``"full"``: the whole block), through torch's reentrant checkpoint, which saves only its inputs.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
import torch.utils.checkpoint
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
        self.recompute_core = False  # selective recomputation: the core is checkpointed
        self.ln = nn.LayerNorm(hidden)
        self.q, self.k, self.v = (
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
            nn.Linear(hidden, hidden),
        )
        self.proj = nn.Linear(hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.ln(x)
        q, k, v = self.q(z), self.k(z), self.v(z)
        if self.recompute_core:
            y = torch.utils.checkpoint.checkpoint(self.core, q, k, v, use_reentrant=True)
        else:
            y = self.core(q, k, v)
        return x + F.dropout(self.proj(y), p=self.dropout, training=self.training)

    def core(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Causal attention of every head: q, k, v ``[s, b, h]`` -> the heads' output ``[s, b, h]``."""
        s, b, h = q.shape

        def split(t: torch.Tensor) -> torch.Tensor:  # [s, b, h] -> [b, heads, s, d]
            return t.reshape(s, b, self.heads, self.head_dim).permute(1, 2, 0, 3)

        q, k, v = split(q), split(k), split(v)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.head_dim**-0.5
        future = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
        y = scores.masked_fill(future, float("-inf")).softmax(dim=-1) @ v
        return y.permute(2, 0, 1, 3).reshape(s, b, h)


class GPTBlock(nn.Module):
    """One transformer block: attention, then the MLP, each with its residual."""

    RECOMPUTE = ("none", "selective", "full")

    def __init__(
        self,
        hidden: int,
        heads: int,
        ffn_hidden: int | None = None,
        dropout: float = 0.0,
        recompute: str = "none",
    ) -> None:
        super().__init__()
        if recompute not in self.RECOMPUTE:
            raise ValueError(f"recompute must be one of {self.RECOMPUTE}, not {recompute!r}")
        self.attention = AttentionBlock(hidden, heads, dropout)
        self.mlp = MLPBlock(hidden, ffn_hidden or 4 * hidden, dropout)
        self.recompute = recompute
        self.attention.recompute_core = recompute == "selective"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.recompute == "full":
            return torch.utils.checkpoint.checkpoint(self.sublayers, x, use_reentrant=True)
        return self.sublayers(x)

    def sublayers(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.attention(x))


class GPT(nn.Module):
    """A small GPT: ``logits = head(ln(blocks(token_embedding[tokens] + position_embedding)))``.

    Tokens are ``[s, b]`` (``s <= max_seq_len``), logits ``[s, b, vocab_size]``. Every linear
    layer of a block has a bias; the head has none and is the token embedding itself when
    ``tied``.
    """

    def __init__(
        self,
        vocab_size: int,
        max_seq_len: int,
        hidden: int,
        heads: int,
        layers: int,
        ffn_hidden: int | None = None,
        *,
        tied: bool = True,
        dropout: float = 0.0,
        recompute: str = "none",
    ) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, hidden)
        self.position_embedding = nn.Embedding(max_seq_len, hidden)
        self.blocks = nn.ModuleList(
            GPTBlock(hidden, heads, ffn_hidden, dropout, recompute) for _ in range(layers)
        )
        self.ln = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab_size, bias=False)
        if tied:
            self.head.weight = self.token_embedding.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[0])
        x = self.token_embedding(tokens) + self.position_embedding(positions)[:, None, :]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


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


def build_gpt_block(
    hidden: int,
    heads: int,
    ffn_hidden: int | None = None,
    *,
    seed: int = 0,
    dtype=torch.float32,
    dropout: float = 0.0,
    recompute: str = "none",
) -> GPTBlock:
    return seeded(GPTBlock(hidden, heads, ffn_hidden, dropout, recompute), seed, dtype)


def build_gpt(*args, seed: int = 0, dtype=torch.float32, **kwargs) -> GPT:
    """:class:`GPT` (its arguments) with weights drawn from ``seed`` (a tied head drawn once)."""
    return seeded(GPT(*args, **kwargs), seed, dtype)


def state_of(block: nn.Module) -> dict[str, torch.Tensor]:
    """The block's parameters as plain detached copies, by ``state_dict`` name."""
    return {name: t.detach().clone() for name, t in block.state_dict().items()}
