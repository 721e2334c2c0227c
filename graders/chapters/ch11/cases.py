"""The examples chapter 11 draws, and their one-line reproductions.

A layout is five sizes whose product is the world and an ``order`` (a permutation of the five
dimensions, the default about half the time). The pure exercises draw layouts of up to 64 ranks;
``build_groups`` runs on every rank of a real world of the layout's size, up to 8.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import strategies as st

DIMS = ("tp", "cp", "ep", "dp", "pp")
DEFAULT_ORDER = "tp-cp-ep-dp-pp"


@dataclass(frozen=True)
class LayoutCase:
    tp: int
    cp: int
    ep: int
    dp: int
    pp: int
    order: str = DEFAULT_ORDER
    combined: tuple[str, ...] = ()  # groups of several dimensions asked for ("tp-pp", "dp-cp")
    gpus_per_node: int = 1
    world_size: int = 1  # the pure exercises run on one rank; build_groups on the layout's world

    @property
    def layout(self) -> dict:
        """``RankLayout``'s keyword arguments."""
        return {dim: getattr(self, dim) for dim in DIMS} | {"order": self.order}

    @property
    def size(self) -> int:
        """How many ranks the layout has."""
        return math.prod(getattr(self, dim) for dim in DIMS)

    @property
    def entries(self) -> tuple[str, ...]:
        """The dimensions ``build_groups`` is asked for: each single one, then the combined ones."""
        return (*DIMS, *self.combined)

    def __repr__(self) -> str:
        sizes = ", ".join(f"{dim}={getattr(self, dim)}" for dim in DIMS)
        text = f"RankLayout({sizes}, order={self.order!r})"
        if self.combined:
            text += f", combined={list(self.combined)}"
        if self.gpus_per_node > 1:
            text += f", gpus_per_node={self.gpus_per_node}"
        return text


def _factors(total: int) -> list[int]:
    return [d for d in range(1, total + 1) if total % d == 0]


@st.composite
def layouts(draw, *, sizes=(1, 2, 4, 6, 8, 12, 16, 24, 32, 64), multi_rank: bool = False, gpus=(1,)):
    """A layout of one of ``sizes`` ranks, split over the five dimensions at random."""
    total = draw(st.sampled_from(sizes))
    left, split = total, {}
    for dim in draw(st.permutations(DIMS)):
        split[dim] = draw(st.sampled_from(_factors(left))) if dim != "pp" or left == 1 else left
        left //= split[dim]
    split["pp"] *= left  # what is left goes to pp
    order = draw(st.sampled_from((DEFAULT_ORDER, "-".join(draw(st.permutations(DIMS))))))
    combos = draw(st.lists(st.sampled_from(COMBINED), min_size=1, max_size=2, unique=True))
    return LayoutCase(
        **split,
        order=order,
        combined=tuple(combos),
        gpus_per_node=draw(st.sampled_from(gpus)),
        world_size=total if multi_rank else 1,
    )


#: groups of several dimensions the graders ask for (Megatron-Core's own, and others)
COMBINED = ("tp-pp", "dp-cp", "tp-cp", "tp-dp", "tp-ep", "ep-dp", "pp-tp-dp", "cp-ep-dp", "tp-cp-ep-dp-pp")

LAYOUT_EDGES = [
    LayoutCase(1, 1, 1, 1, 1, combined=("tp-pp",)),
    LayoutCase(2, 1, 1, 2, 2, combined=("tp-pp", "dp-cp")),  # the README's example
    LayoutCase(2, 2, 1, 3, 2, order="pp-dp-ep-cp-tp", combined=("tp-dp",)),
]
GROUP_EDGES = [
    LayoutCase(1, 1, 1, 2, 1, combined=("tp-dp",), world_size=2),
    LayoutCase(2, 1, 1, 2, 2, combined=("tp-pp", "dp-cp"), world_size=8),
    LayoutCase(2, 1, 2, 1, 1, order="ep-tp-cp-dp-pp", combined=("tp-ep",), world_size=4),
]
PLACEMENT_EDGES = [
    LayoutCase(2, 1, 1, 2, 2, gpus_per_node=4),
    LayoutCase(3, 1, 1, 2, 1, gpus_per_node=4),  # the tp group [3, 4, 5] straddles two nodes
    LayoutCase(4, 1, 1, 2, 2, order="dp-tp-cp-ep-pp", gpus_per_node=4),
    LayoutCase(8, 2, 1, 2, 1, gpus_per_node=8),
]
