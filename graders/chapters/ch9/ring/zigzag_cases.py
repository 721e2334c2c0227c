"""The examples of the zigzag layout (``context_parallel.py``): a tensor whose sequence axis
``dim`` (sometimes negative) is cut into ``2 · cp_size`` chunks of ``chunk`` positions, for a
context-parallel group of ``cp_size`` ranks. The functions are pure: they run in one worker."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.judge import strategies as S


@dataclass(frozen=True)
class ZigzagCase:
    cp_size: int
    chunk: int
    shape: tuple[int, ...]  # the whole tensor's shape, the sequence axis included
    dim: int
    dtype: str = "float32"
    seed: int = 0
    world_size: int = 1
    x: torch.Tensor = field(default=None, compare=False, repr=False)

    @property
    def seq(self) -> int:
        return 2 * self.cp_size * self.chunk

    @property
    def numel(self) -> int:
        return self.x.numel()

    def __repr__(self) -> str:
        return (
            f"x_shape={self.shape}, dim={self.dim}, world={self.cp_size} (chunks of {self.chunk}), "
            f"dtype={self.dtype}, seed={self.seed}"
        )


def build_zigzag(cp_size, chunk, others, dim, *, dtype="float32", seed=0) -> ZigzagCase:
    """``others``: the sizes of the axes besides the sequence's, which goes at ``dim``."""
    shape = list(others)
    seq = 2 * cp_size * chunk
    shape.insert(dim if dim >= 0 else len(others) + 1 + dim, seq)
    x = S.make_tensor(tuple(shape), dtype, S.seeded_generator(seed))
    return ZigzagCase(cp_size, chunk, tuple(shape), dim, dtype, seed, 1, x)


@st.composite
def zigzag_cases(draw):
    others = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    axes = len(others) + 1
    dim = draw(st.integers(-axes, axes - 1))
    return build_zigzag(
        draw(st.integers(1, 4)),
        draw(st.integers(1, 3)),
        others,
        dim,
        dtype=draw(st.sampled_from(S.ALL_DTYPES)),
        seed=draw(S.seeds),
    )


ZIGZAG_EDGES = [
    build_zigzag(1, 1, (), 0, dtype="int64", seed=1),
    build_zigzag(2, 1, (3,), 0, seed=2),
    build_zigzag(3, 2, (2,), -1, dtype="float64", seed=3),
    build_zigzag(4, 1, (2, 1), 1, seed=4),
]
