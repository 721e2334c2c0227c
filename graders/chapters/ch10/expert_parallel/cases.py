"""The distributed examples of chapter 10: expert parallelism, its groups and its gradients.

An expert-parallel case spreads ``n · experts_per_rank`` experts over the ``n`` ranks of its
group; group rank ``i`` routes ``tokens[i]`` tokens of its own (they differ from rank to rank,
and a skewed router sends them all to expert 0, so that most experts get none and rank 0
sends nothing away).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.chapters.ch10.cases import (
    CAPACITY_FACTORS,
    FLOATS,
    _generator,
    _randn,
    expert_weights,
    router_weight,
    tokens_for,
)
from graders.judge import strategies as S

# -- expert parallelism ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpertParallelCase(S.GroupMembers):
    world_size: int
    group: tuple[int, ...] | None
    experts_per_rank: int
    tokens: tuple[int, ...]  # per group rank
    hidden: int
    ffn_hidden: int
    k: int
    capacity_factor: float
    normalize: bool = True
    logits: str = "random"
    dtype: str = "float32"
    seed: int = 0
    xs: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)
    grads: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)
    router: torch.Tensor = field(default=None, compare=False, repr=False)
    experts: tuple = field(default=(), compare=False, repr=False)

    @property
    def num_experts(self) -> int:
        return self.n * self.experts_per_rank

    @property
    def numel(self) -> int:
        return sum(x.numel() for x in self.xs)

    def owner(self, expert: int) -> int:
        """The group rank that holds ``expert``."""
        return expert // self.experts_per_rank

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        return (
            f"world_size={self.world_size}{group}, num_experts={self.num_experts}, "
            f"tokens_per_rank={self.tokens}, hidden={self.hidden}, ffn_hidden={self.ffn_hidden}, "
            f"k={self.k}, capacity_factor={self.capacity_factor}, normalize={self.normalize}, "
            f"logits={self.logits!r}, dtype={self.dtype}, seed={self.seed}"
        )


def build_expert_parallel(
    world_size,
    group,
    per_rank,
    tokens,
    hidden,
    ffn,
    k,
    capacity_factor,
    *,
    normalize=True,
    logits="random",
    dtype="float32",
    seed=0,
) -> ExpertParallelCase:
    n = len(group) if group is not None else world_size
    assert len(tokens) == n
    generator = _generator(seed)
    router = router_weight(logits, n * per_rank, hidden, dtype, generator)
    experts = expert_weights(generator, dtype, n * per_rank, hidden, ffn)
    xs = tuple(tokens_for(logits, (t, hidden), dtype, generator) for t in tokens)
    grads = tuple(_randn(generator, dtype, t, hidden) for t in tokens)
    return ExpertParallelCase(
        world_size,
        group,
        per_rank,
        tuple(tokens),
        hidden,
        ffn,
        k,
        capacity_factor,
        normalize,
        logits,
        dtype,
        seed,
        xs,
        grads,
        router,
        experts,
    )


@st.composite
def expert_parallel_cases(draw, *, min_members: int = 1):
    world_size, group = draw(S.worlds(min_members=min_members))
    n = len(group) if group is not None else world_size
    per_rank = draw(st.integers(1, 2))
    experts = n * per_rank
    return build_expert_parallel(
        world_size,
        group,
        per_rank,
        tuple(draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))),
        draw(st.integers(1, 4)),
        draw(st.integers(1, 4)),
        draw(st.integers(1, min(2, experts))),
        draw(st.sampled_from(CAPACITY_FACTORS)),
        normalize=draw(st.booleans()),
        logits=draw(st.sampled_from(("random", "random", "skewed"))),
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


EXPERT_PARALLEL_EDGES = [
    build_expert_parallel(1, None, 2, (4,), 3, 2, 2, 1.0, dtype="float64", seed=1),
    # group rank 0's tokens all stay home, group rank 1 sends all of its own to it; experts 1-3 idle
    build_expert_parallel(3, (1, 2), 2, (3, 5), 2, 3, 1, 2.0, logits="skewed", seed=2),
    build_expert_parallel(4, None, 1, (2, 5, 1, 3), 4, 3, 2, 1.25, dtype="float64", seed=3),
]


# -- the expert-data-parallel groups --------------------------------------------------------------------


@dataclass(frozen=True)
class GroupsCase:
    world: int
    ep: int
    dp: int
    world_size: int = 1  # a pure function: one worker

    @property
    def valid(self) -> bool:
        return self.ep >= 1 and self.dp >= 1 and self.ep * self.dp == self.world

    def __repr__(self) -> str:
        return f"world={self.world}, ep={self.ep}, dp={self.dp}"


@st.composite
def groups_cases(draw):
    ep, dp = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    world = ep * dp if draw(st.integers(0, 5)) else ep * dp + draw(st.sampled_from((-1, 1, ep)))
    return GroupsCase(max(world, 1), ep, dp)


GROUPS_EDGES = [GroupsCase(1, 1, 1), GroupsCase(8, 2, 4), GroupsCase(6, 3, 2), GroupsCase(6, 4, 2)]


# -- the gradients of expert and data parallelism ----------------------------------------------------------


@dataclass(frozen=True)
class SyncCase(S.GroupMembers):
    """``n = ep · dp`` data-parallel ranks, each holding ``experts_per_rank`` experts and the router,
    with gradients already in place (``router_grads[i]``, ``expert_grads[i]`` for group rank
    ``i``); a parameter listed in ``no_grad`` has none."""

    world_size: int
    group: tuple[int, ...] | None
    ep: int
    hidden: int
    ffn_hidden: int
    experts_per_rank: int
    dtype: str = "float32"
    seed: int = 0
    router_grads: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)
    expert_grads: tuple[tuple, ...] = field(default=(), compare=False, repr=False)

    @property
    def dp(self) -> int:
        return self.n // self.ep

    @property
    def num_experts(self) -> int:
        return self.ep * self.experts_per_rank

    @property
    def numel(self) -> int:
        return self.router_grads[0].numel()

    def expert_group(self, i: int) -> tuple[int, ...]:
        """The global ranks holding group rank ``i``'s experts (strided by ``ep``)."""
        return tuple(self.ranks[j] for j in range(i % self.ep, self.n, self.ep))

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        return (
            f"world_size={self.world_size}{group}, ep={self.ep}, dp={self.dp}, hidden={self.hidden}, "
            f"ffn_hidden={self.ffn_hidden}, experts_per_rank={self.experts_per_rank}, "
            f"dtype={self.dtype}, seed={self.seed}"
        )


def build_sync(world_size, group, ep, hidden, ffn, per_rank, *, dtype="float32", seed=0) -> SyncCase:
    n = len(group) if group is not None else world_size
    assert n % ep == 0
    generator = _generator(seed)
    router_grads = tuple(_randn(generator, dtype, ep * per_rank, hidden) for _ in range(n))
    expert_grads = tuple(expert_weights(generator, dtype, per_rank, hidden, ffn) for _ in range(n))
    return SyncCase(world_size, group, ep, hidden, ffn, per_rank, dtype, seed, router_grads, expert_grads)


@st.composite
def sync_cases(draw, *, min_members: int = 1):
    world_size, group = draw(S.worlds(min_members=min_members))
    n = len(group) if group is not None else world_size
    ep = draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
    return build_sync(
        world_size,
        group,
        ep,
        draw(st.integers(1, 4)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 2)),
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


SYNC_EDGES = [
    build_sync(1, None, 1, 2, 2, 1, dtype="float64", seed=1),
    build_sync(3, (1, 2), 2, 3, 2, 1, seed=2),  # ep=2, dp=1: the expert groups are single ranks
    build_sync(4, None, 2, 2, 3, 2, dtype="float64", seed=3),  # ep=2, dp=2
]
