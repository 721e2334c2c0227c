"""The examples chapter 6 draws, and their one-line reproductions.

Tensor data (inputs, weights, output gradients) is derived from the drawn seed in the driver.
``n`` is the tensor-parallel size: the number of ranks in the case's group.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.judge import strategies as S

FLOATS = S.FLOAT_DTYPES


class InputSized:
    """Mixin for cases with an input ``x``: its element count and element size."""

    @property
    def numel(self) -> int:
        return self.x.numel()

    @property
    def itemsize(self) -> int:
        return self.x.element_size()


#: mapping name -> (split dimension or None, forward collective, backward collective)
MAPPINGS = {
    "copy_to_tp_region": (None, None, "all_reduce"),
    "reduce_from_tp_region": (None, "all_reduce", None),
    "scatter_to_tp_region": (-1, None, "all_gather"),
    "gather_from_tp_region": (-1, "all_gather", None),
    "scatter_to_sequence_region": (0, None, "all_gather"),
    "gather_from_sequence_region": (0, "all_gather", "reduce_scatter"),
    "reduce_scatter_to_sequence_region": (0, "reduce_scatter", "all_gather"),
}


def tensors_from_seed(seed: int, dtype: str, *shapes) -> tuple[torch.Tensor, ...]:
    generator = S.seeded_generator(seed)
    return tuple(S.make_tensor(shape, dtype, generator) for shape in shapes)


# -- the conjugate mappings ---------------------------------------------------------------------


@dataclass(frozen=True)
class MappingCase(S.GroupMembers):
    """Every group rank ``i`` passes ``inputs[i]`` and back-propagates ``grads[i]``."""

    mapping: str
    world_size: int
    group: tuple[int, ...] | None
    shape: tuple[int, ...]  # of every rank's input
    dtype: str
    seed: int = 0
    inputs: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)
    grads: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)

    @property
    def numel(self) -> int:
        return self.inputs[0].numel()

    @property
    def itemsize(self) -> int:
        return self.inputs[0].element_size()

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        return (
            f"world_size={self.world_size}{group}, shape={self.shape}, dtype={self.dtype}, seed={self.seed}"
        )


def output_shape(mapping: str, shape: tuple[int, ...], n: int) -> tuple[int, ...]:
    dim, forward, _ = MAPPINGS[mapping]
    if dim is None:
        return shape
    out = list(shape)
    out[dim] = out[dim] * n if forward == "all_gather" else out[dim] // n
    return tuple(out)


def build_mapping(mapping, world_size, group, shape, dtype, seed=0) -> MappingCase:
    n = len(group) if group is not None else world_size
    out = output_shape(mapping, shape, n)
    tensors = tensors_from_seed(seed, dtype, *([shape] * n), *([out] * n))
    return MappingCase(mapping, world_size, group, tuple(shape), dtype, seed, tensors[:n], tensors[n:])


@st.composite
def mapping_cases(draw, mapping: str):
    world_size, group = draw(S.worlds())
    n = len(group) if group is not None else world_size
    dim, forward, _ = MAPPINGS[mapping]
    shape = list(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    if dim is not None and forward != "all_gather":  # this rank keeps chunk r: divisible by n
        shape[dim] *= n
    return build_mapping(
        mapping, world_size, group, tuple(shape), draw(st.sampled_from(FLOATS)), draw(S.seeds)
    )


def mapping_edges(mapping: str) -> list[MappingCase]:
    """One rank, a relabelled subgroup of a 3-D tensor, and the whole world of 4."""
    dim = MAPPINGS[mapping][0]

    def shape(base, n):
        if dim is None or MAPPINGS[mapping][1] == "all_gather":
            return base
        out = list(base)
        out[dim] *= n
        return tuple(out)

    return [
        build_mapping(mapping, 1, None, (3,), "float64", seed=1),
        build_mapping(mapping, 3, (1, 2), shape((2, 1, 3), 2), "float32", seed=2),
        build_mapping(mapping, 4, None, shape((1, 2), 4), "float64", seed=3),
    ]


# -- the linear layers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class LinearCase(S.GroupMembers, InputSized):
    """A column- or row-parallel layer of ``in_features -> out_features`` on an input shaped
    ``(*lead, in_features)``; ``x`` is the whole input and ``grad`` the whole output's gradient."""

    kind: str  # "column" | "row"
    world_size: int
    group: tuple[int, ...] | None
    in_features: int
    out_features: int
    lead: tuple[int, ...]
    bias: bool
    gather_output: bool = False  # column
    input_is_parallel: bool = False  # row
    sequence_parallel: bool = False
    dtype: str = "float32"
    seed: int = 0
    weight: torch.Tensor = field(default=None, compare=False, repr=False)
    bias_value: torch.Tensor = field(default=None, compare=False, repr=False)
    x: torch.Tensor = field(default=None, compare=False, repr=False)
    grad: torch.Tensor = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        flag = (
            f"gather_output={self.gather_output}"
            if self.kind == "column"
            else f"input_is_parallel={self.input_is_parallel}"
        )
        return (
            f"world_size={self.world_size}{group}, in_features={self.in_features}, "
            f"out_features={self.out_features}, input_shape={(*self.lead, self.in_features)}, "
            f"bias={self.bias}, {flag}, sequence_parallel={self.sequence_parallel}, "
            f"dtype={self.dtype}, seed={self.seed}"
        )


def build_linear(
    kind, world_size, group, in_features, out_features, lead, bias, *, seed=0, dtype="float32", **flags
):
    shapes = [(out_features, in_features), (out_features,), (*lead, in_features), (*lead, out_features)]
    weight, bias_value, x, grad = tensors_from_seed(seed, dtype, *shapes)
    return LinearCase(
        kind,
        world_size,
        group,
        in_features,
        out_features,
        tuple(lead),
        bias,
        **flags,
        dtype=dtype,
        seed=seed,
        weight=weight,
        bias_value=bias_value,
        x=x,
        grad=grad,
    )


@st.composite
def linear_cases(
    draw,
    kind: str,
    *,
    sequence_parallel=(False, True),
    min_members: int = 1,
    per_rank: tuple[int, int] = (1, 4),
    dtypes=FLOATS,
):
    """``per_rank``: the range of in and out features per rank."""
    world_size, group = draw(S.worlds(min_members=min_members))
    n = len(group) if group is not None else world_size
    sp = draw(st.sampled_from(sequence_parallel))
    flags = {"sequence_parallel": sp}
    if kind == "column":
        flags["gather_output"] = draw(st.booleans())
    else:
        flags["input_is_parallel"] = True if sp else draw(st.booleans())
    lead = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    if sp:
        lead = (lead[0] * n, *lead[1:])
    return build_linear(
        kind,
        world_size,
        group,
        n * draw(st.integers(*per_rank)),
        n * draw(st.integers(*per_rank)),
        lead,
        draw(st.booleans()),
        seed=draw(S.seeds),
        dtype=draw(st.sampled_from(dtypes)),
        **flags,
    )


def linear_edges(kind: str) -> list[LinearCase]:
    flag = "gather_output" if kind == "column" else "input_is_parallel"
    return [
        build_linear(kind, 1, None, 3, 2, (2,), True, seed=1, dtype="float64", **{flag: True}),
        build_linear(kind, 3, (1, 2), 4, 6, (3, 2), False, seed=2, **{flag: False}),
        # two ranks, the whole output (or input) on each: a rank that computes with its peer's
        # shard of the master weight (NaN in its copy) shows here
        build_linear(kind, 2, None, 4, 6, (3,), True, seed=4, **{flag: True}),
        build_linear(
            kind, 4, None, 8, 4, (4, 1), True, seed=3, dtype="float64", sequence_parallel=True, **{flag: True}
        ),
    ]


# -- the vocabulary-parallel layers ------------------------------------------------------------------
