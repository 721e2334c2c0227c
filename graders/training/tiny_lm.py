"""Tiny models and data for the training chapters, with the curriculum's awkward parameters.

``TinyLM`` is a one-block language model small enough to train in milliseconds on a CPU, with
every kind of parameter that trips up a parallel implementation:

* a **tied** weight (the LM head shares the embedding matrix),
* a **frozen** parameter (``requires_grad=False``),
* a parameter that **gets no gradient** (never used in forward),
* parameters whose **numel does not divide** the world size (7, 42, 66, ...).

The same seed builds the same model in the driver (single-device reference) and in every
worker, so graders can compare parameters after k optimizer steps exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class TinyConfig:
    vocab: int = 11
    dim: int = 6
    hidden: int = 7
    seq: int = 5


#: the tiny LM every training chapter uses
TINY = TinyConfig()
#: the same model, wide: about 11,000 parameters (44 KiB in float32), so that anything kept per
#: element dwarfs the few Python numbers an honest implementation keeps (a memory part's example)
WIDE = TinyConfig(vocab=32, dim=48, hidden=96, seq=5)


def parameter_bytes(cfg: TinyConfig = TINY, itemsize: int = 4) -> int:
    """Bytes of the tiny LM's parameters (the tied weight once), for a memory part's scale."""
    elements = cfg.vocab * cfg.dim + 2 * cfg.dim + cfg.dim * cfg.hidden + cfg.hidden
    elements += cfg.hidden * cfg.dim + cfg.dim + cfg.dim + 3
    return elements * itemsize


class TinyLM(nn.Module):
    def __init__(self, cfg: TinyConfig = TinyConfig()) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.dim)
        self.norm = nn.LayerNorm(cfg.dim)
        self.up = nn.Linear(cfg.dim, cfg.hidden)
        self.down = nn.Linear(cfg.hidden, cfg.dim)
        self.head = nn.Linear(cfg.dim, cfg.vocab, bias=False)
        self.head.weight = self.embed.weight  # tied
        self.frozen_scale = nn.Parameter(torch.linspace(0.5, 1.5, cfg.dim), requires_grad=False)
        # never used, so it gets no gradient; non-zero so that a zero gradient (plus weight
        # decay) applied to it by mistake shows in the parameters
        self.unused = nn.Parameter(torch.full((3,), 0.5))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) * self.frozen_scale
        x = x + self.down(torch.relu(self.up(self.norm(x))))
        return self.head(x)


def build_model(seed: int, cfg: TinyConfig = TinyConfig(), dtype: torch.dtype = torch.float32) -> TinyLM:
    """The same model for the same seed, in any process."""
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(seed)  # CPU only: torch.manual_seed also queues GPU seeding
        model = TinyLM(cfg)
    return model.to(dtype)


def lm_loss(model: nn.Module, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy over every position of the batch."""
    return logits_loss(model(tokens), targets)


def logits_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """``lm_loss`` from logits already computed; half precision is computed in float32."""
    flat = logits.flatten(0, 1)
    if flat.dtype.itemsize < 4:
        flat = flat.float()
    return F.cross_entropy(flat, targets.flatten())


@dataclass(frozen=True)
class Batch:
    tokens: torch.Tensor  # [batch, seq] int64
    targets: torch.Tensor  # [batch, seq] int64

    def shard(self, rank: int, world: int) -> Batch:
        """Rank ``rank``'s contiguous share of the rows (the batch size must divide by ``world``)."""
        rows = self.tokens.shape[0] // world
        part = slice(rank * rows, (rank + 1) * rows)
        return Batch(self.tokens[part], self.targets[part])


def make_batches(seed: int, steps: int, batch_size: int, cfg: TinyConfig = TinyConfig()) -> list[Batch]:
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(steps):
        tokens = torch.randint(0, cfg.vocab, (batch_size, cfg.seq), generator=generator)
        targets = torch.randint(0, cfg.vocab, (batch_size, cfg.seq), generator=generator)
        batches.append(Batch(tokens, targets))
    return batches


def named_parameters(model: nn.Module) -> dict[str, torch.Tensor]:
    """Detached copies of the parameters by name (a tied weight appears once)."""
    return {name: p.detach().clone() for name, p in model.named_parameters()}


# -- pipeline stages (chapter 7) ---------------------------------------------------------------


class PipelineBlock(nn.Module):
    """One pipeline stage, ``[b, dim] -> [b, dim]``: ``x + down(tanh(up(x * frozen_scale)))``.

    It has a frozen parameter, a parameter that gets no gradient, and a hidden width (5) that
    divides nothing, like ``TinyLM``. Every stage maps a tensor to one of the same shape and
    dtype, so activations and gradients crossing a stage boundary are shaped like the input.
    """

    def __init__(self, dim: int = 4, hidden: int = 5) -> None:
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim, bias=False)
        self.frozen_scale = nn.Parameter(torch.linspace(0.5, 1.5, dim), requires_grad=False)
        self.unused = nn.Parameter(torch.zeros(3))  # never used: gets no gradient

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(torch.tanh(self.up(x * self.frozen_scale)))


def build_pipeline(
    seed: int, num_stages: int, dim: int = 4, dtype: torch.dtype = torch.float32
) -> list[PipelineBlock]:
    """The same ``num_stages`` stages for the same seed, in any process (stage s is item s)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        stages = [PipelineBlock(dim) for _ in range(num_stages)]
    return [stage.to(dtype) for stage in stages]
