"""The examples chapter 8 draws, and their one-line reproductions.

Tensor data is derived from the drawn seed in the driver. A loss-scaling case is a sequence of
steps, each marked with the overflow injected into one gradient after backward (``""`` for
none, ``"inf"``, ``"-inf"`` or ``"nan"``) and with whether the step calls ``unscale_`` itself
before ``step`` (as gradient clipping does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.judge import strategies as S

FLOATS = S.FLOAT_DTYPES
OVERFLOWS = ("", "", "", "inf", "-inf", "nan")

# -- dynamic loss scaling ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScalerCase:
    init_scale: float
    growth_factor: float
    backoff_factor: float
    growth_interval: int
    overflows: tuple[str, ...]  # per step
    explicit_unscale: tuple[bool, ...]  # per step
    seed: int = 0
    world_size: int = 1

    @property
    def steps(self) -> int:
        return len(self.overflows)

    def __repr__(self) -> str:
        return (
            f"init_scale={self.init_scale}, growth_factor={self.growth_factor}, "
            f"backoff_factor={self.backoff_factor}, growth_interval={self.growth_interval}, "
            f"overflows={self.overflows}, explicit_unscale={self.explicit_unscale}, seed={self.seed}"
        )


@st.composite
def scaler_cases(draw):
    steps = draw(st.integers(1, 10))
    return ScalerCase(
        float(2 ** draw(st.integers(0, 16))),
        draw(st.sampled_from((2.0, 4.0, 1.5))),
        draw(st.sampled_from((0.5, 0.25, 0.75))),
        draw(st.integers(1, 4)),
        tuple(draw(st.lists(st.sampled_from(OVERFLOWS), min_size=steps, max_size=steps))),
        tuple(draw(st.lists(st.booleans(), min_size=steps, max_size=steps))),
        draw(S.seeds),
    )


SCALER_EDGES = [
    ScalerCase(4.0, 2.0, 0.5, 1, ("",), (False,), seed=1),  # grows after one finite step
    ScalerCase(
        8.0, 2.0, 0.5, 2, ("", "inf", "", "", "nan", ""), (True, False, False, True, True, False), seed=2
    ),
    ScalerCase(1.0, 1.5, 0.25, 3, ("", "", "-inf", "", "", "", ""), (False,) * 7, seed=3),
]


# -- gradient accumulation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccumulationCase(S.GroupMembers):
    """``steps`` optimizer steps on every rank of ``group``; rank ``i``'s step ``s`` has the
    microbatches ``batches[i][s]`` (rows of ``features`` inputs, one target each)."""

    world_size: int
    group: tuple[int, ...] | None
    features: int
    sizes: tuple[tuple[int, ...], ...]  # per step: the rows of each microbatch (the same on every rank)
    dtype: str = "float32"
    seed: int = 0
    batches: tuple = field(default=(), compare=False, repr=False)

    @property
    def numel(self) -> int:
        return sum(x.numel() for per_rank in self.batches for step in per_rank for x, _ in step)

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        return (
            f"world_size={self.world_size}{group}, features={self.features}, "
            f"microbatch_rows_per_step={self.sizes}, dtype={self.dtype}, seed={self.seed}"
        )


def build_accumulation(world_size, group, features, sizes, *, dtype="float32", seed=0) -> AccumulationCase:
    n = len(group) if group is not None else world_size
    generator = S.seeded_generator(seed)
    batches = tuple(
        tuple(
            tuple(
                (
                    S.make_tensor((rows, features), dtype, generator),
                    S.make_tensor((rows, 1), dtype, generator),
                )
                for rows in step
            )
            for step in sizes
        )
        for _ in range(n)
    )
    return AccumulationCase(world_size, group, features, tuple(map(tuple, sizes)), dtype, seed, batches)


@st.composite
def accumulation_cases(draw, *, min_members: int = 1):
    world_size, group = draw(S.worlds(min_members=min_members))
    steps = draw(st.integers(1, 3))
    sizes = tuple(tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))) for _ in range(steps))
    return build_accumulation(
        world_size,
        group,
        draw(st.integers(1, 4)),
        sizes,
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


ACCUMULATION_EDGES = [
    build_accumulation(1, None, 2, ((3,),), dtype="float64", seed=1),
    build_accumulation(3, (1, 2), 3, ((1, 5), (4, 2, 2)), seed=2),  # uneven microbatches
    build_accumulation(4, None, 2, ((2, 2, 6),), dtype="float64", seed=3),
]


# -- activation checkpointing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckpointCase:
    """``checkpoint(block, x)`` on the kit's MLP block (``graders.training.gpt.build_mlp``) with dropout."""

    seq: int
    batch: int
    hidden: int
    ffn_hidden: int
    dropout: float
    dtype: str = "float32"
    seed: int = 0
    world_size: int = 1
    x: torch.Tensor = field(default=None, compare=False, repr=False)
    grad: torch.Tensor = field(default=None, compare=False, repr=False)

    @property
    def numel(self) -> int:
        return self.x.numel()

    @property
    def parameter_bytes(self) -> int:
        """Bytes of the MLP block's parameters (LayerNorm, two linear layers with biases)."""
        h, w = self.hidden, self.ffn_hidden
        return (2 * h + 2 * w * h + w + h) * S.dtype_of(self.dtype).itemsize

    def __repr__(self) -> str:
        return (
            f"x_shape={(self.seq, self.batch, self.hidden)}, ffn_hidden={self.ffn_hidden}, "
            f"dropout={self.dropout}, dtype={self.dtype}, seed={self.seed}"
        )


def build_checkpoint(seq, batch, hidden, ffn, dropout, *, dtype="float32", seed=0) -> CheckpointCase:
    generator = S.seeded_generator(seed)
    x = S.make_tensor((seq, batch, hidden), dtype, generator)
    grad = S.make_tensor((seq, batch, hidden), dtype, generator)
    return CheckpointCase(seq, batch, hidden, ffn, dropout, dtype, seed, 1, x, grad)


@st.composite
def checkpoint_cases(draw, *, dropouts=(0.0, 0.25, 0.5)):
    return build_checkpoint(
        draw(st.integers(1, 4)),
        draw(st.integers(1, 3)),
        draw(st.integers(2, 8)),
        draw(st.integers(2, 16)),
        draw(st.sampled_from(dropouts)),
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


CHECKPOINT_EDGES = [
    build_checkpoint(1, 1, 2, 4, 0.0, dtype="float64", seed=1),
    build_checkpoint(3, 2, 4, 8, 0.5, seed=2),  # dropout: the masks must repeat
    build_checkpoint(4, 2, 8, 16, 0.25, dtype="float64", seed=3),
    # a block whose parameters dwarf the Python data a checkpoint may keep (the memory promise
    # holds by scale)
    build_checkpoint(2, 1, 64, 128, 0.25, seed=4),
]


# -- mixed precision ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrecisionCase:
    features: int
    hidden: int
    rows: int
    steps: int
    dtype: str  # "bfloat16" | "float16"
    seed: int = 0
    world_size: int = 1
    batches: tuple = field(default=(), compare=False, repr=False)

    @property
    def parameter_bytes(self) -> int:
        """Bytes of the fp32 model's parameters (two linear layers with biases)."""
        return 4 * (self.features * self.hidden + self.hidden + self.hidden + 1)

    def __repr__(self) -> str:
        return (
            f"features={self.features}, hidden={self.hidden}, rows={self.rows}, steps={self.steps}, "
            f"dtype={self.dtype}, seed={self.seed}"
        )


def build_precision(features, hidden, rows, steps, dtype, seed=0) -> PrecisionCase:
    generator = S.seeded_generator(seed + 11)
    batches = tuple(
        (torch.randn(rows, features, generator=generator), torch.randn(rows, 1, generator=generator))
        for _ in range(steps)
    )
    return PrecisionCase(features, hidden, rows, steps, dtype, seed, 1, batches)


@st.composite
def precision_cases(draw):
    return build_precision(
        draw(st.integers(1, 8)),
        draw(st.integers(1, 16)),
        draw(st.integers(1, 8)),
        draw(st.integers(1, 4)),
        draw(st.sampled_from(("bfloat16", "float16"))),
        draw(S.seeds),
    )


PRECISION_EDGES = [
    build_precision(2, 3, 2, 1, "bfloat16", seed=1),
    build_precision(4, 8, 4, 3, "float16", seed=2),
    build_precision(8, 16, 6, 4, "bfloat16", seed=3),
    build_precision(64, 160, 2, 3, "bfloat16", seed=4),  # a model that dwarfs the Python data
]
