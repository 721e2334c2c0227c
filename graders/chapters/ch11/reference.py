"""Chapter 11's references, computed in the driver: the rank grid written out.

``coords`` peels a rank's coordinates off fastest-varying first (Megatron-Core's convention:
the first name of ``order`` varies fastest); a group of some dimensions is the set of ranks that
agree on every other coordinate. ``tests/chapters/test_ch11_megatron.py`` checks these against
Megatron-Core's own ``RankGenerator`` where it is installed.
"""

from __future__ import annotations

from itertools import permutations

from graders.chapters.ch11.cases import DIMS


def _sizes(case) -> list[tuple[str, int]]:
    return [(dim, getattr(case, dim)) for dim in case.order.split("-")]


def coords(case, rank: int) -> dict[str, int]:
    found = {}
    for dim, size in _sizes(case):
        found[dim] = rank % size
        rank //= size
    return found


def groups(case, dims: str) -> list[list[int]]:
    chosen = set(dims.split("-"))
    by_rest: dict[tuple, list[int]] = {}
    for rank in range(case.size):
        c = coords(case, rank)
        by_rest.setdefault(tuple(c[d] for d in DIMS if d not in chosen), []).append(rank)
    return sorted(by_rest.values())


def crossing(case, order: str | None = None) -> dict[str, list[list[int]]]:
    """The groups of each dimension that span more than one node (with ``order`` in place of
    the case's)."""
    if order is not None:
        case = _with_order(case, order)
    per_node = case.gpus_per_node
    return {dim: [g for g in groups(case, dim) if g[0] // per_node != g[-1] // per_node] for dim in DIMS}


def crossing_counts(case, order: str) -> tuple[int, ...]:
    found = crossing(case, order)
    return tuple(len(found[dim]) for dim in DIMS)


def best_counts(case) -> tuple[int, ...]:
    """The fewest crossing groups any order gives, busiest dimension first."""
    return min(crossing_counts(case, "-".join(names)) for names in permutations(DIMS))


def _with_order(case, order: str):
    from dataclasses import replace

    return replace(case, order=order)
