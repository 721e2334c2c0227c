"""The examples of the first DDP script: a dataset, a model and the script's arguments.

The script runs as ``torchrun --nproc-per-node 2 first_ddp.py --data data.pt --init init.pt
--out model.pt --epochs E --batch-size B --lr LR --momentum M --hidden H --seed S``, in a launch
folder where the grader has written ``data.pt`` (``{"x": [n, features], "y": [n, 1]}``, float32,
every row distinct) and ``init.pt`` (the model's initial state dict). ``n`` is even, so the two
processes' shares are equal and disjoint. Seeds are drawn so that DistributedSampler's order
changes between epochs on both ranks: a script that forgets ``set_epoch`` always shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st
from torch import nn

from graders.judge import strategies as S

PROCESSES = 2
DATA, INIT, OUT = "data.pt", "init.pt", "model.pt"


def build_model(features: int, hidden: int) -> nn.Module:
    """The first DDP script's model (its ``build_model``)."""
    return nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, 1))


@dataclass(frozen=True)
class DDPCase:
    examples: int
    features: int
    hidden: int
    epochs: int
    batch_size: int
    lr: float
    momentum: float
    seed: int
    world_size: int = PROCESSES
    x: torch.Tensor = field(default=None, compare=False, repr=False)
    y: torch.Tensor = field(default=None, compare=False, repr=False)
    init: dict = field(default=None, compare=False, repr=False)

    @property
    def argv(self) -> list[str]:
        return [
            *("--data", DATA, "--init", INIT, "--out", OUT),
            *("--epochs", str(self.epochs), "--batch-size", str(self.batch_size)),
            *("--lr", str(self.lr), "--momentum", str(self.momentum)),
            *("--hidden", str(self.hidden), "--seed", str(self.seed)),
        ]

    def launch_files(self) -> dict[str, object]:
        """What the grader writes (``torch.save``) into the launch folder before launching."""
        return {DATA: {"x": self.x, "y": self.y}, INIT: self.init}

    def launch_outputs(self) -> tuple[str, ...]:
        """What the driver reads back from the launch folder once the ranks are gone."""
        return (OUT,)

    @property
    def steps_per_epoch(self) -> int:
        share = self.examples // PROCESSES
        return -(-share // self.batch_size)

    def __repr__(self) -> str:
        return (
            f"torchrun --nproc-per-node {PROCESSES} first_ddp.py "
            + " ".join(self.argv)
            + f"  (data: {self.examples} examples of {self.features} features)"
        )


def sampler_order(examples: int, seed: int, epoch: int) -> list[int]:
    """DistributedSampler's permutation of ``examples`` indices for ``seed`` and ``epoch``."""
    generator = torch.Generator().manual_seed(seed + epoch)
    return torch.randperm(examples, generator=generator).tolist()


def _reshuffles(examples: int, seed: int, epochs: int) -> bool:
    """Whether every later epoch gives both ranks another order than epoch 0 does."""
    first = sampler_order(examples, seed, 0)
    for epoch in range(1, epochs):
        order = sampler_order(examples, seed, epoch)
        if any(order[r::PROCESSES] == first[r::PROCESSES] for r in range(PROCESSES)):
            return False
    return True


def build_ddp_case(examples, features, hidden, epochs, batch_size, lr, momentum, seed) -> DDPCase:
    while not _reshuffles(examples, seed, epochs):
        seed += 1
    generator = S.seeded_generator(seed)
    x = torch.randn(examples, features, generator=generator)
    y = x.sum(dim=1, keepdim=True).sin() + 0.1 * torch.randn(examples, 1, generator=generator)
    model = build_model(features, hidden)
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.randn(param.shape, generator=generator) * 0.5)
    init = {name: t.detach().clone() for name, t in model.state_dict().items()}
    return DDPCase(examples, features, hidden, epochs, batch_size, lr, momentum, seed, PROCESSES, x, y, init)


@st.composite
def ddp_cases(draw):
    return build_ddp_case(
        2 * draw(st.integers(2, 10)),
        draw(st.integers(1, 4)),
        draw(st.integers(2, 6)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 5)),
        draw(st.sampled_from((0.05, 0.1))),
        draw(st.sampled_from((0.0, 0.9))),
        draw(S.seeds),
    )


DDP_EDGES = [
    build_ddp_case(4, 1, 2, 1, 2, 0.1, 0.0, seed=1),
    build_ddp_case(10, 3, 4, 2, 3, 0.05, 0.9, seed=2),  # a shorter last batch, two epochs
    build_ddp_case(12, 2, 5, 3, 2, 0.1, 0.9, seed=3),
]
