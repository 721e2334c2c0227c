"""Hypothesis strategies shared by the chapters: world sizes, groups, shapes, dtypes, tensors.

Examples are plain frozen dataclasses whose ``repr`` is the one-line reproduction shown in
feedback (``world_size=3, shape=(7,), dtype=int64, op='max'``). Tensor contents are derived
from a drawn seed in the driver, so a reproduction line pins the exact data too.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import torch
from hypothesis import example
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


#: what a drawn group is: one rank alone, the whole world, or a proper subgroup of it
ONE_RANK, WHOLE_WORLD, SUBGROUP = "one rank", "whole world", "subgroup"


def worlds(*, sizes: Sequence[int] = (1, 2, 3, 4), min_members: int = 1, subgroups: bool = True):
    """The strategy of :func:`_worlds`, made once for the same arguments: a chapter's strategy
    asks for it at every draw, and hypothesis validates every strategy object it is given anew."""
    return _worlds_of(tuple(sizes), min_members, subgroups)


@functools.cache
def _worlds_of(sizes: tuple[int, ...], min_members: int, subgroups: bool):
    return _worlds(sizes=sizes, min_members=min_members, subgroups=subgroups)


@functools.cache
def _sampled(values: tuple):
    """``st.sampled_from(values)``, one object for the same values (a list is made anew each time)."""
    return st.sampled_from(values)


@st.composite
def _worlds(
    draw, *, sizes: tuple[int, ...], min_members: int, subgroups: bool
) -> tuple[int, tuple[int, ...] | None]:
    """``(world_size, group)`` for a call that takes ``group=``, drawn to reach the bugs.

    ``group`` is None (the default group), the whole world as an explicit group, or a proper
    subgroup (sorted global ranks, so group rank i is ``group[i]``). About a quarter of the
    draws run on one rank, half on the whole world of 2 or more ranks, and a quarter on a
    proper subgroup of at least 2 ranks, most of whose group ranks differ from their global
    ranks: where a global ``src`` mistaken for a group rank, or a group rank passed as a
    global one, goes wrong. (A subgroup needs a world of 3 or more, idle ranks included: a
    quarter keeps the mean world no bigger than uniform sizes would.) ``sizes`` are the world
    sizes to draw from (repeat one to draw it more often), ``min_members`` the fewest ranks
    the call needs.
    """
    kinds = [ONE_RANK] if 1 in sizes and min_members <= 1 else []
    kinds += [WHOLE_WORLD, WHOLE_WORLD] if any(n >= max(2, min_members) for n in sizes) else []
    if subgroups and any(n >= max(3, min_members + 1) for n in sizes):
        kinds += [SUBGROUP]
    kind = draw(_sampled(tuple(kinds)))
    if kind == ONE_RANK:
        return 1, None
    if kind == WHOLE_WORLD:
        world_size = draw(_sampled(tuple(n for n in sizes if n >= max(2, min_members))))
        explicit = draw(_sampled((False, False, False, True)))  # a group object for the world
        return world_size, tuple(range(world_size)) if explicit else None
    world_size = draw(_sampled(tuple(n for n in sizes if n >= max(3, min_members + 1))))
    size = draw(st.integers(max(2, min_members), world_size - 1))
    return world_size, tuple(sorted(draw(st.permutations(range(world_size)))[:size]))


@functools.cache
def shapes(min_dims: int = 1, max_dims: int = 3, max_numel: int = 3000):
    """Shapes with tiny, uneven and (now and then) a few thousand elements; about one in eight
    has a 0-sized dimension (one strategy object for the same arguments, as :func:`worlds`)."""
    return _shapes(min_dims, max_dims, max_numel)


@st.composite
def _shapes(draw, min_dims: int, max_dims: int, max_numel: int) -> tuple[int, ...]:
    ndim = draw(st.integers(min_dims, max_dims))
    if ndim == 1 and draw(st.integers(0, 4)) == 0:
        return (draw(st.integers(1, max_numel)),)
    dims = draw(st.lists(st.integers(1, 9), min_size=ndim, max_size=ndim))
    while math.prod(dims) > max_numel:
        dims[dims.index(max(dims))] //= 2
    if dims and draw(st.integers(0, 7)) == 0:
        dims[draw(st.integers(0, ndim - 1))] = 0
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


def smallest_first(*cases):
    """``@example`` for every case, run smallest first (fewest ranks, then fewest elements), so
    that the first explicit example that fails, the one reported, is the simplest."""

    def size(case) -> tuple[int, int]:
        return case.world_size, getattr(case, "numel", 0)

    def decorate(test):
        for case in sorted(cases, key=size, reverse=True):  # hypothesis runs the last added first
            test = example(case=case)(test)
        return test

    return decorate
