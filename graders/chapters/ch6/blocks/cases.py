"""The blocks chapter 6 draws (MLP and attention), and their one-line reproductions."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.chapters.ch6.cases import FLOATS, InputSized, tensors_from_seed
from graders.judge import strategies as S
from graders.training import gpt as models


@dataclass(frozen=True)
class BlockCase(S.GroupMembers, InputSized):
    """An MLP or attention block on ``x`` shaped ``[seq, batch, hidden]``."""

    kind: str  # "mlp" | "attention"
    world_size: int
    group: tuple[int, ...] | None
    seq: int
    batch: int
    hidden: int
    width: int  # the MLP's inner features, or the attention's heads
    sequence_parallel: bool = False
    dtype: str = "float32"
    seed: int = 0
    dropout: float = 0.0
    x: torch.Tensor = field(default=None, compare=False, repr=False)
    grad: torch.Tensor = field(default=None, compare=False, repr=False)

    @property
    def parameter_bytes(self) -> int:
        """Bytes of the single-device block's parameters."""
        h, w = self.hidden, self.width
        elements = 2 * h + (2 * w * h + w + h if self.kind == "mlp" else 4 * h * h + 4 * h)
        return elements * torch.empty((), dtype=S.dtype_of(self.dtype)).element_size()

    def single_device(self):
        """The single-device block of this case, with its weights."""
        dtype = S.dtype_of(self.dtype)
        if self.kind == "mlp":
            return models.build_mlp(
                self.hidden, self.width, seed=self.seed, dtype=dtype, dropout=self.dropout
            )
        return models.build_attention(
            self.hidden, self.width, seed=self.seed, dtype=dtype, dropout=self.dropout
        )

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        width = "ffn_hidden" if self.kind == "mlp" else "heads"
        drop = f", dropout={self.dropout}" if self.dropout else ""
        return (
            f"world_size={self.world_size}{group}, x_shape={(self.seq, self.batch, self.hidden)}, "
            f"{width}={self.width}, sequence_parallel={self.sequence_parallel}{drop}, "
            f"dtype={self.dtype}, seed={self.seed}"
        )


def build_block(
    kind,
    world_size,
    group,
    seq,
    batch,
    hidden,
    width,
    *,
    sequence_parallel=False,
    dtype="float32",
    seed=0,
    dropout=0.0,
) -> BlockCase:
    x, grad = tensors_from_seed(seed + 7, dtype, (seq, batch, hidden), (seq, batch, hidden))
    return BlockCase(
        kind, world_size, group, seq, batch, hidden, width, sequence_parallel, dtype, seed, dropout, x, grad
    )


@st.composite
def block_cases(
    draw,
    kind: str,
    *,
    sequence_parallel: bool = False,
    min_members: int = 1,
    dropout: float = 0.0,
    measured: bool = False,
):
    """``measured``: blocks large enough (8-16 features, 2-4 tokens per rank) that a memory
    promise of a few activations stands well above the few bytes a measurement may differ by."""
    world_size, group = draw(S.worlds(sizes=(1, 2, 3, 4), min_members=min_members))
    n = len(group) if group is not None else world_size
    seq = draw(st.integers(2, 4) if measured else st.integers(1, 3)) * (n if sequence_parallel else 1)
    if kind == "mlp":
        hidden = draw(st.integers(8, 16) if measured else st.integers(2, 6))
        width = n * draw(st.integers(1, 3))
    else:
        width = n * draw(st.integers(1, 2))  # heads
        hidden = width * draw(st.integers(1, 3))
    return build_block(
        kind,
        world_size,
        group,
        seq,
        draw(st.integers(1, 2)),
        hidden,
        width,
        sequence_parallel=sequence_parallel,
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
        dropout=dropout,
    )


def block_edges(kind: str, *, sequence_parallel: bool = False, dropout: float = 0.0) -> list[BlockCase]:
    width = {"mlp": (4, 6, 8), "attention": (2, 2, 4)}[kind]
    sp = dict(sequence_parallel=sequence_parallel, dropout=dropout)
    if dropout:  # the memory promise's edges: ``measured`` sizes, and a block whose parameters
        # dwarf the Python data a block may keep (the memory promise holds by scale)
        return [
            build_block(kind, 3, (1, 2), 4, 1, 8, width[1], seed=2, **sp),
            build_block(kind, 4, None, 8, 1, 8, width[2], dtype="float64", seed=3, **sp),
            build_block(kind, 2, None, 4, 1, 64, 128 if kind == "mlp" else 4, seed=4, **sp),
        ]
    return [
        build_block(kind, 1, None, 2, 1, 4, width[0], dtype="float64", seed=1, **sp),
        build_block(kind, 3, (1, 2), 2, 2, 4, width[1], seed=2, **sp),
        build_block(kind, 4, None, 4, 1, 8, width[2], dtype="float64", seed=3, **sp),
    ]


def fields(case) -> dict:
    """The case's drawn fields, to build a variant of it (``build_block(**fields(case))``)."""
    names = ("kind", "world_size", "group", "seq", "batch", "hidden", "width")
    keywords = ("sequence_parallel", "dtype", "seed", "dropout")
    return {**{n: getattr(case, n) for n in names}, **{k: getattr(case, k) for k in keywords}}
