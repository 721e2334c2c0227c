"""The examples chapter 9 draws, and their one-line reproductions.

Blockwise attention draws ``[batch, heads, seq, dim]`` tensors, a block size that often leaves
a shorter last block, and causal or not; its memory part draws sequences several blocks long, so
that a full ``seq × seq`` score matrix would be the largest thing made. Ulysses draws a group of
``P`` ranks, each with ``seq_per_rank`` positions of ``P · heads_per_rank`` heads; its heads part
draws a head count that ``P`` does not divide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders import strategies as S

FLOATS = S.FLOAT_DTYPES


@dataclass(frozen=True)
class BlockwiseCase:
    batch: int
    heads: int
    seq: int
    dim: int
    block_size: int
    causal: bool
    dtype: str = "float32"
    seed: int = 0
    world_size: int = 1
    q: torch.Tensor = field(default=None, compare=False, repr=False)
    k: torch.Tensor = field(default=None, compare=False, repr=False)
    v: torch.Tensor = field(default=None, compare=False, repr=False)

    @property
    def numel(self) -> int:
        return self.q.numel()

    def __repr__(self) -> str:
        return (
            f"q_shape={(self.batch, self.heads, self.seq, self.dim)}, block_size={self.block_size}, "
            f"causal={self.causal}, dtype={self.dtype}, seed={self.seed}"
        )


def build_blockwise(batch, heads, seq, dim, block_size, causal, *, dtype="float32", seed=0) -> BlockwiseCase:
    generator = S.seeded_generator(seed)
    q, k, v = (S.make_tensor((batch, heads, seq, dim), dtype, generator) for _ in range(3))
    return BlockwiseCase(batch, heads, seq, dim, block_size, causal, dtype, seed, 1, q, k, v)


@st.composite
def blockwise_cases(draw, *, long: bool = False):
    """``long``: sequences of 4-8 blocks, at least four times the head dimension."""
    block = draw(st.integers(1, 4))
    dim = draw(st.integers(1, 4))
    if long:
        seq = max(4 * dim, block * draw(st.integers(4, 8))) + draw(st.integers(0, block - 1))
    else:
        seq = draw(st.integers(1, 12))
    return build_blockwise(
        draw(st.integers(1, 2)),
        draw(st.integers(1, 3)),
        seq,
        dim,
        block,
        draw(st.booleans()),
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


BLOCKWISE_EDGES = [
    build_blockwise(1, 1, 1, 2, 1, False, dtype="float64", seed=1),
    build_blockwise(1, 2, 7, 3, 3, True, seed=2),  # a last block of one key
    build_blockwise(2, 1, 9, 2, 4, False, dtype="float64", seed=3),
]
LONG_EDGES = [
    build_blockwise(1, 1, 16, 2, 2, True, dtype="float64", seed=4),
    build_blockwise(1, 2, 21, 4, 4, False, seed=5),
]


@dataclass(frozen=True)
class UlyssesCase(S.GroupMembers):
    world_size: int
    group: tuple[int, ...] | None
    seq_per_rank: int
    heads: int
    dim: int
    causal: bool
    dtype: str = "float32"
    seed: int = 0
    qs: tuple = field(default=(), compare=False, repr=False)  # per group rank: (q, k, v)
    grads: tuple = field(default=(), compare=False, repr=False)

    @property
    def numel(self) -> int:
        return sum(t.numel() for qkv in self.qs for t in qkv)

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        return (
            f"world_size={self.world_size}{group}, seq_per_rank={self.seq_per_rank}, heads={self.heads}, "
            f"dim={self.dim}, causal={self.causal}, dtype={self.dtype}, seed={self.seed}"
        )


def build_ulysses(
    world_size, group, seq_per_rank, heads, dim, causal, *, dtype="float32", seed=0
) -> UlyssesCase:
    n = len(group) if group is not None else world_size
    generator = S.seeded_generator(seed)
    shape = (seq_per_rank, heads, dim)
    qs = tuple(tuple(S.make_tensor(shape, dtype, generator) for _ in range(3)) for _ in range(n))
    grads = tuple(S.make_tensor(shape, dtype, generator) for _ in range(n))
    return UlyssesCase(world_size, group, seq_per_rank, heads, dim, causal, dtype, seed, qs, grads)


@st.composite
def ulysses_cases(draw, *, min_members: int = 1, divisible: bool = True):
    world_size, group = draw(S.worlds(min_members=min_members))
    n = len(group) if group is not None else world_size
    heads = n * draw(st.integers(1, 2))
    if not divisible:
        heads += draw(st.integers(1, n - 1))
    return build_ulysses(
        world_size,
        group,
        draw(st.integers(1, 3)),
        heads,
        draw(st.integers(1, 4)),
        draw(st.booleans()),
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


ULYSSES_EDGES = [
    build_ulysses(1, None, 3, 2, 2, True, dtype="float64", seed=1),
    build_ulysses(3, (1, 2), 2, 4, 3, True, seed=2),
    build_ulysses(4, None, 1, 4, 2, False, dtype="float64", seed=3),
]
HEADS_EDGES = [
    build_ulysses(2, None, 2, 3, 2, False, seed=4),
    build_ulysses(3, (0, 2), 1, 5, 2, True, dtype="float64", seed=5),
]
