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

from graders.chapters.ch9 import reference
from graders.judge import strategies as S

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


#: what blockwise attention may hold alive at once, per query row, in elements: this many blocks
#: of scores, rows of the output and running scalars (the reference holds at most 2, 4 and 6)
PEAK_BLOCKS, PEAK_OUTPUTS, PEAK_SCALARS = 4, 6, 12


def held_per_row(block: int, dim: int) -> int:
    """The elements per query row blockwise attention may hold alive at once: a few blocks of
    scores (the scores, their exponentials, a mask), a few rows of the output (the accumulator,
    its rescaled copy, ``p @ v``, the result) and a dozen running scalars (``m``, ``l``, their
    updates, the log-sum-exp)."""
    return PEAK_BLOCKS * block + PEAK_OUTPUTS * dim + PEAK_SCALARS


def long_enough(block: int, dim: int) -> int:
    """A sequence whose score rows are twice what a query row may hold: kept whole (every block of
    scores alive at once), they could not pass as honest working memory."""
    return 2 * held_per_row(block, dim)


@st.composite
def blockwise_cases(draw, *, long: bool = False):
    """``long``: sequences long enough that the whole score matrix is at least twice what the
    memory part lets the call hold at once (:func:`long_enough`)."""
    block = draw(st.integers(1, 4))
    dim = draw(st.integers(1, 4))
    if long:
        seq = long_enough(block, dim) + draw(st.integers(0, block - 1))
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
    build_blockwise(1, 1, long_enough(2, 2), 2, 2, True, dtype="float64", seed=4),
    build_blockwise(1, 2, long_enough(4, 4) + 3, 4, 4, False, seed=5),  # a last block of one key
]


@dataclass(frozen=True)
class ShardedCase(S.GroupMembers):
    """A sequence split over the ``P`` ranks of a group, ``seq_per_rank`` positions each, in the
    ``layout`` of the ring (``"contiguous"`` or ``"zigzag"``); the whole sequence's q, k, v and
    the output's gradient are ``[seq, heads, dim]``."""

    world_size: int
    group: tuple[int, ...] | None
    seq_per_rank: int
    heads: int
    dim: int
    causal: bool
    dtype: str = "float32"
    seed: int = 0
    layout: str = "contiguous"
    whole: tuple = field(default=(), compare=False, repr=False)  # (q, k, v, grad)

    @property
    def seq(self) -> int:
        return self.n * self.seq_per_rank

    def shard(self, tensor: torch.Tensor, i: int) -> torch.Tensor:
        """Group rank ``i``'s positions of a ``[seq, ...]`` tensor."""
        return tensor[reference.positions(i, self.n, self.seq_per_rank, self.layout)]

    @property
    def qs(self) -> tuple:
        """Per group rank: its (q, k, v)."""
        return tuple(tuple(self.shard(t, i) for t in self.whole[:3]) for i in range(self.n))

    @property
    def grads(self) -> tuple:
        return tuple(self.shard(self.whole[3], i) for i in range(self.n))

    @property
    def numel(self) -> int:
        return sum(t.numel() for t in self.whole)

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        layout = f", layout={self.layout!r}" if self.layout != "contiguous" else ""
        return (
            f"world_size={self.world_size}{group}, seq_per_rank={self.seq_per_rank}, heads={self.heads}, "
            f"dim={self.dim}, causal={self.causal}{layout}, dtype={self.dtype}, seed={self.seed}"
        )


def build_sharded(
    world_size, group, seq_per_rank, heads, dim, causal, *, dtype="float32", seed=0, layout="contiguous"
) -> ShardedCase:
    n = len(group) if group is not None else world_size
    generator = S.seeded_generator(seed)
    whole = tuple(S.make_tensor((n * seq_per_rank, heads, dim), dtype, generator) for _ in range(4))
    return ShardedCase(world_size, group, seq_per_rank, heads, dim, causal, dtype, seed, layout, whole)


@st.composite
def ulysses_cases(draw, *, min_members: int = 1, divisible: bool = True):
    world_size, group = draw(S.worlds(min_members=min_members))
    n = len(group) if group is not None else world_size
    heads = n * draw(st.integers(1, 2))
    if not divisible:
        heads += draw(st.integers(1, n - 1))
    return build_sharded(
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
    build_sharded(1, None, 3, 2, 2, True, dtype="float64", seed=1),
    build_sharded(3, (1, 2), 2, 4, 3, True, seed=2),
    build_sharded(4, None, 1, 4, 2, False, dtype="float64", seed=3),
]
HEADS_EDGES = [
    build_sharded(2, None, 2, 3, 2, False, seed=4),
    build_sharded(3, (0, 2), 1, 5, 2, True, dtype="float64", seed=5),
]


@st.composite
def ring_cases(draw, *, min_members: int = 1, layout: str = "contiguous"):
    """Ring attention: 1-4 ranks and subgroups; the zigzag layout holds two chunks per rank
    (an even ``seq_per_rank``) and is mostly causal, where the layout matters."""
    world_size, group = draw(S.worlds(min_members=min_members))
    zigzag = layout == "zigzag"
    seq_per_rank = 2 * draw(st.integers(1, 2)) if zigzag else draw(st.integers(1, 3))
    causal = draw(st.sampled_from((True, True, True, False))) if zigzag else draw(st.booleans())
    return build_sharded(
        world_size,
        group,
        seq_per_rank,
        draw(st.integers(1, 3)),
        draw(st.integers(1, 4)),
        causal,
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
        layout=layout,
    )


RING_EDGES = [
    build_sharded(1, None, 3, 2, 2, True, dtype="float64", seed=6),
    build_sharded(3, (1, 2), 2, 2, 3, True, seed=7),
    build_sharded(4, None, 1, 1, 2, False, dtype="float64", seed=8),
    build_sharded(3, None, 2, 2, 2, True, seed=9),
]
#: the ring's memory, on rings long enough that holding every block shows: 8 ranks (and a
#: subgroup of 7), blocks wider than their scores (``dim`` ≫ ``seq_per_rank``)
RING_MEMORY_CASES = [
    build_sharded(8, None, 2, 1, 16, False, seed=13),
    build_sharded(8, None, 2, 2, 8, True, seed=14),
    build_sharded(8, (0, 1, 2, 3, 4, 5, 7), 3, 1, 16, True, dtype="float64", seed=15),
]
ZIGZAG_RING_EDGES = [
    build_sharded(2, None, 2, 1, 2, True, dtype="float64", seed=10, layout="zigzag"),
    build_sharded(4, (0, 1, 3), 4, 2, 3, True, seed=11, layout="zigzag"),
    build_sharded(4, None, 2, 2, 2, True, dtype="float64", seed=12, layout="zigzag"),
]
