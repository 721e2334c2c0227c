"""The examples chapter 2 draws, and their one-line reproductions."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders import strategies as S

OPS = ("sum", "avg", "max", "min")


@dataclass(frozen=True)
class CollectiveCase(S.GroupMembers):
    """One collective call: every rank of ``group`` passes ``inputs[group_rank]``."""

    world_size: int
    group: tuple[int, ...] | None
    shape: tuple[int, ...]
    dtype: str
    op: str = "sum"
    root: int = 0  # global rank: src of a broadcast, dst of a reduce
    seed: int = 0
    show: tuple[str, ...] = field(default=("shape", "dtype"), compare=False)
    inputs: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)

    @property
    def numel(self) -> int:
        return self.inputs[0].numel()

    @property
    def itemsize(self) -> int:
        return self.inputs[0].element_size()

    def __repr__(self) -> str:
        parts = [f"world_size={self.world_size}"]
        if self.group is not None:
            parts.append(f"group={self.group}")
        for name in self.show:
            if name in ("src", "dst"):
                parts.append(f"{name}={self.root}")
            elif name == "dtype":
                parts.append(f"dtype={self.dtype}")
            else:
                parts.append(f"{name}={getattr(self, name)!r}")
        parts.append(f"seed={self.seed}")
        return ", ".join(parts)


def build_collective(world_size, group, shape, dtype, op="sum", root=0, seed=0, show=("shape", "dtype")):
    n = len(group) if group is not None else world_size
    generator = S.seeded_generator(seed)
    inputs = tuple(S.make_tensor(shape, dtype, generator) for _ in range(n))
    return CollectiveCase(world_size, group, tuple(shape), dtype, op, root, seed, tuple(show), inputs)


@st.composite
def collective_cases(draw, *, ops=("sum",), dtypes=S.ALL_DTYPES, rooted: str = "", max_numel=3000):
    """Collective calls; ``rooted`` names the root argument ("src" or "dst") when there is one."""
    world_size = draw(S.world_sizes())
    group = draw(S.groups(world_size))
    dtype = draw(st.sampled_from(dtypes))
    allowed_ops = [op for op in ops if op != "avg" or dtype in S.FLOAT_DTYPES]
    op = draw(st.sampled_from(allowed_ops))
    shape = draw(S.shapes(max_numel=max_numel))
    ranks = group if group is not None else tuple(range(world_size))
    root = draw(st.sampled_from(ranks)) if rooted else 0
    seed = draw(S.seeds)
    show = ("shape", "dtype") + (("op",) if ops != ("sum",) else ()) + ((rooted,) if rooted else ())
    return build_collective(world_size, group, shape, dtype, op, root, seed, show)


@dataclass(frozen=True)
class AllToAllCase(S.GroupMembers):
    """``inputs[i][j]`` is what group rank i sends to group rank j (shapes vary per pair)."""

    world_size: int
    group: tuple[int, ...] | None
    dtype: str
    shapes: tuple[tuple[tuple[int, ...], ...], ...]
    seed: int = 0
    inputs: tuple[tuple[torch.Tensor, ...], ...] = field(default=(), compare=False, repr=False)

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        return (
            f"world_size={self.world_size}{group}, dtype={self.dtype}, shapes={self.shapes}, seed={self.seed}"
        )


def build_all_to_all(world_size, group, dtype, shapes, seed=0) -> AllToAllCase:
    generator = S.seeded_generator(seed)
    inputs = tuple(tuple(S.make_tensor(shape, dtype, generator) for shape in row) for row in shapes)
    return AllToAllCase(world_size, group, dtype, shapes, seed, inputs)


@st.composite
def all_to_all_cases(draw):
    world_size = draw(S.world_sizes())
    group = draw(S.groups(world_size))
    n = len(group) if group is not None else world_size
    dtype = draw(st.sampled_from(S.ALL_DTYPES))
    shape = S.shapes(min_dims=0, max_dims=3, max_numel=200)
    shapes = tuple(tuple(draw(shape) for _ in range(n)) for _ in range(n))
    return build_all_to_all(world_size, group, dtype, shapes, draw(S.seeds))


# Edge cases every profile runs first (hypothesis @example): empty, fewer elements than ranks,
# uneven chunks, a subgroup, an explicit whole-world group.
EDGE_COLLECTIVES = (
    dict(world_size=4, group=None, shape=(0,), dtype="float32"),
    dict(world_size=4, group=None, shape=(3,), dtype="int64"),
    dict(world_size=3, group=None, shape=(7, 2), dtype="float64"),
    dict(world_size=4, group=(1, 3), shape=(5,), dtype="int64"),
    dict(world_size=3, group=(0, 1, 2), shape=(2, 3, 2), dtype="float32"),
    dict(world_size=4, group=None, shape=(5,), dtype="float32"),  # tensor_split [2,1,1,1] != chunk [2,2,1]
)


def edge_collectives(rooted: str = "", ops=("sum",)):
    show = ("shape", "dtype") + (("op",) if ops != ("sum",) else ()) + ((rooted,) if rooted else ())
    cases = []
    for i, spec in enumerate(EDGE_COLLECTIVES):
        ranks = spec["group"] or tuple(range(spec["world_size"]))
        root = ranks[-1] if rooted else 0
        case_op = ops[i % len(ops)]
        if case_op == "avg" and spec["dtype"] not in S.FLOAT_DTYPES:
            case_op = "sum"
        cases.append(build_collective(**spec, op=case_op, root=root, seed=i, show=show))
    return cases


# -- cost model --------------------------------------------------------------------------------

SUPPORTED = (
    ("all_reduce", "ring"),
    ("all_gather", "ring"),
    ("reduce_scatter", "ring"),
    ("all_to_all", "ring"),
    ("broadcast", "tree"),
    ("reduce", "tree"),
    ("all_reduce", "tree"),
)


@dataclass(frozen=True)
class CostCase:
    """One question to the cost model. ``n`` is the modelled world; the task runs on one rank."""

    collective: str
    algorithm: str
    nbytes: int
    n: int
    alpha: float = 0.0
    beta: float = 0.0
    seconds: float = 1.0
    world_size: int = 1

    def __repr__(self) -> str:
        return (
            f"collective={self.collective!r}, algorithm={self.algorithm!r}, nbytes={self.nbytes}, "
            f"world={self.n}, alpha={self.alpha:g}, beta={self.beta:g}, seconds={self.seconds:g}"
        )


@st.composite
def cost_cases(draw):
    collective, algorithm = draw(st.sampled_from(SUPPORTED))
    return CostCase(
        collective,
        algorithm,
        nbytes=draw(st.integers(0, 2**36)),
        n=draw(st.integers(1, 2048)),
        alpha=draw(st.floats(1e-7, 1e-3)),
        beta=draw(st.floats(1e-12, 1e-8)),
        seconds=draw(st.floats(1e-6, 100.0)),
    )


MEASURABLE = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce")


@dataclass(frozen=True)
class MeasuredCase:
    """Run ``collective`` on ``world_size`` ranks and compare the cost model with the trace."""

    world_size: int
    collective: str
    numel: int
    seed: int = 0
    inputs: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)

    @property
    def n(self) -> int:
        return self.world_size

    @property
    def algorithm(self) -> str:
        return "tree" if self.collective in ("broadcast", "reduce") else "ring"

    @property
    def nbytes(self) -> int:
        """The full buffer: for all_gather, the gathered output."""
        one = self.numel * 4
        return one * self.n if self.collective == "all_gather" else one


@st.composite
def measured_cases(draw):
    world_size = draw(st.integers(2, 4))
    collective = draw(st.sampled_from(MEASURABLE))
    numel = world_size * draw(st.integers(1, 64))  # divisible: the ring moves exactly (N-1)/N
    seed = draw(S.seeds)
    generator = S.seeded_generator(seed)
    inputs = tuple(S.make_tensor((numel,), "float32", generator) for _ in range(world_size))
    return MeasuredCase(world_size, collective, numel, seed, inputs)
