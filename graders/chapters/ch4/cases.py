"""The training runs chapter 4 draws, and their one-line reproductions.

A :class:`TrainCase` pins everything a run depends on: the world, the group, the model
(``graders.training.tiny_lm.TinyLM``, built from ``seed``: tied, frozen, unused and indivisible
parameters), the dtype, the optimizer, the batches (also from ``seed``) and, for DDP, the
bucket cap. The driver's reference and every worker rebuild the same model and data from it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from hypothesis import strategies as st

from graders.judge import strategies as S
from graders.training import OptimizerSpec, optimizer_specs
from graders.training.tiny_lm import TINY, WIDE, Batch, TinyConfig, TinyLM, build_model, make_batches

STEPS = 3  # the curriculum's "at least 3 optimizer steps"


@dataclass(frozen=True)
class ParamInfo:
    """One parameter of the model as ``named_parameters()`` lists it (a tied weight once)."""

    name: str
    shape: tuple[int, ...]
    nbytes: int
    trainable: bool

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@functools.lru_cache(maxsize=8)
def layout(dtype: str, every_param_used: bool, wide: bool = False) -> tuple[ParamInfo, ...]:
    """The model's parameters, which do not depend on the seed (computed once per kind)."""
    model = build_model(0, WIDE if wide else TINY, dtype=S.dtype_of(dtype))
    if every_param_used:
        del model.unused
    return tuple(
        ParamInfo(name, tuple(p.shape), p.numel() * p.element_size(), p.requires_grad)
        for name, p in model.named_parameters()
    )


@dataclass(frozen=True)
class TrainCase(S.GroupMembers):
    world_size: int
    group: tuple[int, ...] | None
    dtype: str
    optimizer: OptimizerSpec
    seed: int = 0
    steps: int = STEPS
    rows: int = 1  # rows of the batch per rank and micro-batch
    micro_batches: int = 1  # > 1: from step 2 on, all but the last run under DDP.no_sync()
    bucket_cap_bytes: int = 25 * 2**20
    every_param_used: bool = False  # drop the parameter that gets no gradient
    show_cap: bool = False
    wide: bool = False  # the wide tiny LM (a memory part's scale: see graders.training.python_heap)

    @property
    def bucket_cap_mb(self) -> float:
        return self.bucket_cap_bytes / 2**20  # exact: a power-of-two division

    @property
    def params(self) -> tuple[ParamInfo, ...]:
        return layout(self.dtype, self.every_param_used, self.wide)

    @property
    def config(self) -> TinyConfig:
        return WIDE if self.wide else TINY

    @property
    def parameter_bytes(self) -> int:
        return sum(p.nbytes for p in self.params)

    def model(self) -> TinyLM:
        model = build_model(self.seed, self.config, dtype=S.dtype_of(self.dtype))
        if self.every_param_used:
            del model.unused
        return model

    @property
    def micro_per_step(self) -> list[int]:
        """Micro-batches of every step: the first step never accumulates, so the graders can
        compare a step without ``no_sync`` with the steps after one."""
        return [1] + [self.micro_batches] * (self.steps - 1)

    def batches(self) -> list[Batch]:
        return [
            make_batches(self.seed + k, 1, self.rows * micro * self.n, self.config)[0]
            for k, micro in enumerate(self.micro_per_step)
        ]

    def __repr__(self) -> str:
        parts = [f"world_size={self.world_size}"]
        if self.group is not None:
            parts.append(f"group={self.group}")
        parts += [f"dtype={self.dtype}", f"optimizer={self.optimizer!r}", f"steps={self.steps}"]
        parts.append(f"rows_per_rank={self.rows}")
        if self.micro_batches > 1:
            parts.append(f"micro_batches={self.micro_batches}")
        if self.show_cap:
            parts.append(f"bucket_cap_mb={self.bucket_cap_bytes}/2**20")
        if self.every_param_used:
            parts.append("model without its unused parameter")
        if self.wide:
            parts.append("model=wide")
        parts.append(f"seed={self.seed}")
        return ", ".join(parts)


def trainable_bytes(case: TrainCase) -> int:
    return sum(p.nbytes for p in case.params if p.trainable)


@st.composite
def train_cases(
    draw,
    *,
    min_world: int = 1,
    max_world: int = 4,
    subgroups: bool = True,
    micro_batches: tuple[int, int] = (1, 1),
    bucket_caps: tuple[float, float] | None = None,
    every_param_used: bool = False,
    optimizers: tuple[str, ...] = ("sgd", "adamw"),
):
    """Training runs on ``min_world`` to ``max_world`` ranks, sometimes a subgroup.

    Equivalence draws 1-4 ranks; the structural checks (buckets, overlap, traffic, memory),
    whose lesson does not change from 3 ranks to 4, stop at 3: 4 ranks on a 2-core machine
    cost twice as much.

    ``micro_batches`` is the range of micro-batches per step. ``bucket_caps=(lo, hi)`` draws
    a cap between the fractions ``lo`` and ``hi`` of the trainable bytes (at least one
    element): ``(0, 1)`` gives one to eight buckets, ``(0.25, 1)`` one to four.
    """
    sizes = [n for n in (1, 2, 3, 2, 3, 2, 4) if n <= max_world]  # 4 ranks cost twice what 2 do
    world_size, group = draw(S.worlds(sizes=sizes, min_members=min_world, subgroups=subgroups))
    dtype = draw(st.sampled_from(S.FLOAT_DTYPES))
    case = TrainCase(
        world_size,
        group,
        dtype,
        draw(optimizer_specs(optimizers, dtype)),
        seed=draw(S.seeds),
        rows=draw(st.integers(1, 2)),
        micro_batches=draw(st.integers(*micro_batches)),
        every_param_used=every_param_used,
    )
    if bucket_caps is not None:
        elements = trainable_bytes(case) // S.dtype_of(dtype).itemsize
        lo, hi = (max(1, math.ceil(f * elements)) for f in bucket_caps)
        # sampled_from: uniform over the caps (integers() favours the smallest cap, 8 buckets)
        cap = draw(st.sampled_from(range(lo, hi + 1))) * S.dtype_of(dtype).itemsize
        case = TrainCase(**{**case.__dict__, "bucket_cap_bytes": cap, "show_cap": True})
    return case


ADAMW = OptimizerSpec("adamw", 0.03, 0.2)
SGD = OptimizerSpec("sgd", 0.2, 0.05, momentum=0.9)
SGD_PLAIN = OptimizerSpec("sgd", 0.05, 0.2)  # float32 trains with SGD (optimizer_specs)

# Explicit examples every profile runs first.
PARAM_SERVER_EDGES = (
    TrainCase(4, None, "float32", SGD_PLAIN, seed=1),
    TrainCase(4, (1, 2, 3), "float64", ADAMW, seed=2),  # the server is global rank 1
    TrainCase(1, None, "float64", SGD, seed=4),
)
DDP_EDGES = (
    TrainCase(4, None, "float32", SGD_PLAIN, seed=1),
    TrainCase(4, (1, 3), "float64", SGD, seed=2),  # group rank 0 is global rank 1
    TrainCase(1, None, "float64", ADAMW, seed=3),
    # 8 buckets, one parameter each; the first holds only the parameter that gets no gradient
    TrainCase(3, None, "float64", SGD, seed=4, bucket_cap_bytes=8, show_cap=True),
    TrainCase(2, None, "float32", SGD_PLAIN, seed=5, bucket_cap_bytes=200, show_cap=True),
    TrainCase(2, None, "float32", SGD_PLAIN, seed=6, every_param_used=True),
    TrainCase(3, None, "float64", SGD, seed=7, micro_batches=2, every_param_used=True),
)
FSDP_EDGES = (
    TrainCase(4, None, "float32", SGD_PLAIN, seed=1),  # 178 elements: 2 of padding
    TrainCase(3, (0, 2), "float64", SGD, seed=2),
    TrainCase(1, None, "float64", ADAMW, seed=3),
    TrainCase(4, (1, 2, 3), "float32", SGD, seed=4, rows=2),
    TrainCase(2, None, "float32", ADAMW, seed=5, wide=True),  # a model that dwarfs the Python data
)
