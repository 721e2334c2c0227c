"""The examples chapter 2 draws, and their one-line reproductions."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.chapters.ch2.reference_traffic import MEASURED
from graders.judge import strategies as S

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
    def rooted(self) -> bool:
        """Whether ``root`` is an argument of the call (``src`` or ``dst``)."""
        return "src" in self.show or "dst" in self.show

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
    world_size, group = draw(S.worlds())
    dtype = draw(st.sampled_from(dtypes))
    allowed_ops = [op for op in ops if op != "avg" or dtype in S.FLOAT_DTYPES]
    op = draw(st.sampled_from(allowed_ops))
    shape = draw(S.shapes(max_numel=max_numel))
    ranks = group if group is not None else tuple(range(world_size))
    # src/dst: the last member first, the one whose group rank most often differs from its global rank
    root = draw(st.sampled_from(ranks[::-1])) if rooted else 0
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

    @property
    def numel(self) -> int:
        """Elements that travel: every block but the ones a rank keeps."""
        return sum(t.numel() for i, row in enumerate(self.inputs) for j, t in enumerate(row) if i != j)

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
    world_size, group = draw(S.worlds())
    n = len(group) if group is not None else world_size
    dtype = draw(st.sampled_from(S.ALL_DTYPES))
    shape = S.shapes(min_dims=0, max_dims=3, max_numel=200)
    shapes = tuple(tuple(draw(shape) for _ in range(n)) for _ in range(n))
    return build_all_to_all(world_size, group, dtype, shapes, draw(S.seeds))


# Edge cases every profile runs first (hypothesis @example), by name. ``root`` (src or dst) is a
# global rank; on the subgroup (1, 2) of 3 ranks it is group rank 0, and 1 % 2 != 0, so neither
# a global rank read as a group rank nor one wrapped around the group lands on it by luck.
EDGE_SPECS = {
    "one rank": dict(world_size=1, group=None, shape=(3,), dtype="float64", op="avg"),
    "subgroup": dict(world_size=3, group=(1, 2), shape=(5,), dtype="int64", op="max", root=1),
    "float64 sum": dict(world_size=3, group=None, shape=(7, 2), dtype="float64", op="sum"),  # 14 = 5+5+4
    "whole world as a group": dict(world_size=3, group=(0, 1, 2), shape=(2, 3, 2), dtype="float32", op="avg"),
    "empty": dict(world_size=4, group=None, shape=(0,), dtype="float32", op="sum"),
    "numel < N": dict(world_size=4, group=None, shape=(3,), dtype="int64", op="min"),
    "split, not chunk": dict(world_size=4, group=None, shape=(5,), dtype="float32", op="sum"),  # [2,1,1,1]
    "subgroup of 4": dict(world_size=4, group=(1, 3), shape=(5,), dtype="int64", op="sum", root=3),
}


def edge_collectives(rooted: str = "", ops=("sum",)) -> dict[str, CollectiveCase]:
    """The edge cases by name, for a call with ``ops`` and (when ``rooted``) a src or dst."""
    show = ("shape", "dtype") + (("op",) if ops != ("sum",) else ()) + ((rooted,) if rooted else ())
    edges = {}
    for i, (name, spec) in enumerate(EDGE_SPECS.items()):
        spec = dict(spec)
        ranks = spec["group"] or tuple(range(spec["world_size"]))
        root = spec.pop("root", ranks[-1])
        op = spec.pop("op")
        if op not in ops or (op == "avg" and spec["dtype"] not in S.FLOAT_DTYPES):
            op = "sum"
        edges[name] = build_collective(**spec, op=op, root=root if rooted else 0, seed=i, show=show)
    return edges


#: all-to-all edge cases: a relabelled subgroup with a different shape per pair (a scalar and an
#: empty block included), and empty blocks of two shapes beside a full one
EDGE_ALL_TO_ALL = {
    "subgroup": build_all_to_all(3, (1, 2), "float64", (((2,), (0,)), ((), (3, 1))), seed=1),
    "empty": build_all_to_all(2, None, "int64", (((0,), (0, 2)), ((4,), (0,))), seed=2),
}


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


#: pairs the model does not define, with a made-up collective and a made-up algorithm
UNSUPPORTED = tuple(
    (collective, algorithm)
    for collective in (
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "all_to_all",
        "broadcast",
        "reduce",
        "gather",
    )
    for algorithm in ("ring", "tree", "butterfly")
    if (collective, algorithm) not in SUPPORTED
)


@st.composite
def unsupported_cases(draw):
    collective, algorithm = draw(st.sampled_from(UNSUPPORTED))
    return CostCase(collective, algorithm, nbytes=draw(st.integers(0, 2**30)), n=draw(st.integers(1, 64)))


MEASURABLE = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce")


@dataclass(frozen=True)
class MeasuredCase:
    """Ask the cost model about ``collective`` on ``n`` ranks of ``numel`` float32 elements each,
    and compare with what the kit's reference collective was measured to send there."""

    collective: str
    n: int
    numel: int
    world_size: int = 1  # the cost model runs on one rank; ``n`` is the measured world

    @property
    def algorithm(self) -> str:
        return "tree" if self.collective in ("broadcast", "reduce") else "ring"

    @property
    def nbytes(self) -> int:
        """The full buffer: for all_gather, the gathered output."""
        one = self.numel * 4
        return one * self.n if self.collective == "all_gather" else one

    def __repr__(self) -> str:
        return f"collective={self.collective!r}, world={self.n}, numel={self.numel} (float32 per rank)"


def measured_cases():
    """The (collective, world, numel) the reference collectives were measured on."""
    return st.sampled_from([MeasuredCase(*key) for key in sorted(MEASURED)])
