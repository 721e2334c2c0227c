"""Hypothesis strategies shared by the chapters: world sizes, groups, shapes, dtypes, tensors.

Examples are plain frozen dataclasses whose ``repr`` is the one-line reproduction shown in
feedback (``world_size=3, shape=(7,), dtype=int64, op='max'``). Tensor contents are derived
from a drawn seed in the driver, so a reproduction line pins the exact data too.
"""

from __future__ import annotations

import math

import torch
from hypothesis import strategies as st


class GroupMembers:
    """Mixin for cases with ``world_size`` and ``group`` fields: the global ranks taking part
    (``group`` in group-rank order, or the whole world) and how many there are."""

    @property
    def ranks(self) -> tuple[int, ...]:
        return self.group if self.group is not None else tuple(range(self.world_size))

    @property
    def n(self) -> int:
        return len(self.ranks)


FLOAT_DTYPES = ("float32", "float64")
ALL_DTYPES = ("float32", "float64", "int64")


def world_sizes(min_size: int = 1, max_size: int = 4) -> st.SearchStrategy[int]:
    return st.integers(min_size, max_size)


@st.composite
def groups(draw, world_size: int, subgroup_chance: float = 0.3) -> tuple[int, ...] | None:
    """``None`` (the default group) most of the time; otherwise a sorted subset of the ranks.

    A subset equal to the whole world is passed as an explicit group object.
    """
    if world_size == 1 or draw(st.floats(0, 1)) >= subgroup_chance:
        return None
    members = draw(st.lists(st.integers(0, world_size - 1), min_size=1, max_size=world_size, unique=True))
    return tuple(sorted(members))


@st.composite
def shapes(draw, min_dims: int = 1, max_dims: int = 3, max_numel: int = 3000) -> tuple[int, ...]:
    """Shapes with 0-sized, tiny, uneven and (now and then) a few thousand elements."""
    ndim = draw(st.integers(min_dims, max_dims))
    if ndim == 1 and draw(st.integers(0, 4)) == 0:
        return (draw(st.integers(0, max_numel)),)
    dims = draw(st.lists(st.integers(0, 9), min_size=ndim, max_size=ndim))
    while math.prod(dims) > max_numel:
        dims[dims.index(max(dims))] //= 2
    return tuple(dims)


def dtype_of(name: str) -> torch.dtype:
    return getattr(torch, name)


def make_tensor(shape: tuple[int, ...], dtype: str, generator: torch.Generator) -> torch.Tensor:
    """Random data: normal floats, or small integers so that sums stay exact and readable."""
    torch_dtype = dtype_of(dtype)
    if torch_dtype.is_floating_point:
        return torch.randn(shape, generator=generator, dtype=torch.float64).to(torch_dtype)
    return torch.randint(-50, 50, shape, generator=generator, dtype=torch_dtype)


def seeded_generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


seeds = st.integers(0, 2**16)
