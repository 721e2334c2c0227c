"""The examples of the cost model (``lc_cost.py``): sizes from one rank to thousands, about one in
six of them impossible to split (a sequence or heads the ranks do not divide, an unknown method),
where a ``ValueError`` is expected; and the rows measured from the kit's implementations."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from graders.chapters.ch9.lc_cost.reference import MEASURED, Measured, invalid

WORLDS = (1, 2, 3, 4, 8, 16, 64, 256, 1024)
BYTES = (1, 2, 4, 8)
METHODS = ("full", "blockwise", "ring", "ulysses")


@dataclass(frozen=True)
class CostCase:
    function: str  # "score_bytes", "ring_comm_bytes" or "ulysses_comm_bytes"
    method: str
    seq: int
    heads: int
    world: int
    bytes_per_element: int = 2
    head_dim: int = 0
    block_size: int | None = None
    backward: bool = True
    world_size: int = 1

    @property
    def invalid(self) -> bool:
        return invalid(self.method, self.seq, self.heads, self.world)

    @property
    def numel(self) -> int:
        return 1

    def __repr__(self) -> str:
        if self.function == "score_bytes":
            block = f", block_size={self.block_size}" if self.method == "blockwise" else ""
            return (
                f"score_bytes({self.method!r}, seq={self.seq}, heads={self.heads}, "
                f"world={self.world}{block}, bytes_per_element={self.bytes_per_element})"
            )
        return (
            f"{self.function}(seq={self.seq}, heads={self.heads}, head_dim={self.head_dim}, "
            f"world={self.world}, bytes_per_element={self.bytes_per_element}, backward={self.backward})"
        )


@st.composite
def _sizes(draw, method: str):
    world = draw(st.sampled_from(WORLDS))
    spoil = world > 1 and method in ("ring", "ulysses") and draw(st.integers(0, 5)) == 0
    seq = world * draw(st.integers(1, 4096)) + (draw(st.integers(1, world - 1)) if spoil else 0)
    if method == "ulysses":
        spoil_heads = world > 1 and not spoil and draw(st.integers(0, 5)) == 0
        heads = world * draw(st.integers(1, 8)) + (draw(st.integers(1, world - 1)) if spoil_heads else 0)
    else:
        heads = draw(st.integers(1, 128))
    return seq, heads, world


@st.composite
def score_cases(draw):
    method = draw(st.sampled_from((*METHODS, *METHODS, "flash")))
    seq, heads, world = draw(_sizes("ring" if method == "flash" else method))
    block = draw(st.integers(1, 4096)) if method == "blockwise" else None
    bpe = draw(st.sampled_from(BYTES))
    return CostCase("score_bytes", method, seq, heads, world, bpe, block_size=block)


@st.composite
def comm_cases(draw, method: str):
    seq, heads, world = draw(_sizes(method))
    bpe, dim, backward = draw(st.sampled_from(BYTES)), draw(st.integers(1, 256)), draw(st.booleans())
    return CostCase(f"{method}_comm_bytes", method, seq, heads, world, bpe, dim, backward=backward)


SCORE_EDGES = [
    CostCase("score_bytes", "full", 8, 2, 1, 2),
    CostCase("score_bytes", "blockwise", 6, 1, 1, 4, block_size=8),  # a block longer than the sequence
    CostCase("score_bytes", "ring", 12, 3, 4, 2),
    CostCase("score_bytes", "ulysses", 12, 8, 4, 2),
    CostCase("score_bytes", "ulysses", 8, 6, 4, 2),  # heads the ranks do not divide
    CostCase("score_bytes", "ulysses", 10, 4, 4, 2),  # a sequence the ranks do not divide
]
RING_EDGES = [
    CostCase("ring_comm_bytes", "ring", 8, 2, 1, 2, 4),
    CostCase("ring_comm_bytes", "ring", 8, 2, 2, 2, 4, backward=False),
    CostCase("ring_comm_bytes", "ring", 12, 2, 4, 2, 4),
    CostCase("ring_comm_bytes", "ring", 10, 2, 4, 2, 4),  # a sequence the ranks do not divide
]
ULYSSES_EDGES = [
    CostCase("ulysses_comm_bytes", "ulysses", 8, 2, 1, 2, 4),
    CostCase("ulysses_comm_bytes", "ulysses", 8, 4, 2, 2, 4, backward=False),
    CostCase("ulysses_comm_bytes", "ulysses", 12, 8, 4, 2, 4),
    CostCase("ulysses_comm_bytes", "ulysses", 12, 6, 4, 2, 4),  # heads the ranks do not divide
]


@dataclass(frozen=True)
class MeasuredCase:
    """Every row of the measured table for one method, run at once."""

    method: str
    rows: tuple[Measured, ...]
    world_size: int = 1

    @property
    def numel(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"the {len(self.rows)} {self.method} rows measured from the kit's implementation"


def measured_case(method: str) -> MeasuredCase:
    return MeasuredCase(method, tuple(row for row in MEASURED if row.method == method))
