"""The examples chapter 10 draws, and their one-line reproductions.

Tensor data (tokens, router and expert weights, output gradients) is derived from the drawn
seed in the driver. A router's ``logits`` say how its weight was drawn: ``"random"``,
``"ties"`` (small integers, with pairs of equal expert rows, so that logits tie exactly),
``"uniform"`` (a zero weight: every expert equally likely) or ``"skewed"`` (expert 0 is every
token's first choice, so that capacity drops tokens and some experts get none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.judge import strategies as S

FLOATS = S.FLOAT_DTYPES
LOGITS = ("random", "ties", "uniform", "skewed")
CAPACITY_FACTORS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def capacity(tokens: int, num_experts: int, k: int, capacity_factor: float) -> int:
    slots = capacity_factor * tokens * k / num_experts  # in the README's order
    return math.ceil(slots)


def ample(num_experts: int, k: int) -> float:
    """A capacity factor that drops no token: ``capacity >= tokens``."""
    return float(num_experts) / k


def _generator(seed: int) -> torch.Generator:
    return S.seeded_generator(seed)


def _randn(generator, dtype: str, *shape) -> torch.Tensor:
    return S.make_tensor(shape, dtype, generator)


def router_weight(logits: str, num_experts: int, hidden: int, dtype: str, generator) -> torch.Tensor:
    """``[experts, hidden]``, drawn the way ``logits`` says (see the module's docstring)."""
    torch_dtype = S.dtype_of(dtype)
    if logits == "uniform":
        return torch.zeros(num_experts, hidden, dtype=torch_dtype)
    if logits == "ties":
        weight = torch.randint(-2, 3, (num_experts, hidden), generator=generator).to(torch_dtype)
        for e in range(1, num_experts, 2):  # experts 2j and 2j+1 score every token the same
            weight[e] = weight[e - 1]
        return weight
    weight = _randn(generator, dtype, num_experts, hidden)
    if logits == "skewed":
        weight[0] = 4.0  # tokens drawn with a positive mean all prefer expert 0
    return weight


def tokens_for(logits: str, shape, dtype: str, generator) -> torch.Tensor:
    if logits == "ties":
        return torch.randint(-2, 3, shape, generator=generator).to(S.dtype_of(dtype))
    x = _randn(generator, dtype, *shape)
    return x.abs() + 0.5 if logits == "skewed" else x


# -- capacity ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CapacityCase:
    tokens: int
    num_experts: int
    k: int
    capacity_factor: float
    world_size: int = 1

    def __repr__(self) -> str:
        return (
            f"tokens={self.tokens}, num_experts={self.num_experts}, k={self.k}, "
            f"capacity_factor={self.capacity_factor}"
        )


@st.composite
def capacity_cases(draw):
    experts = draw(st.integers(1, 64))
    # binary fractions: the products are exact, so every order of them gives the same ceiling
    factor = draw(st.sampled_from((*CAPACITY_FACTORS, 0.125, 1.125, 3.0)))
    return CapacityCase(draw(st.integers(1, 4096)), experts, draw(st.integers(1, min(4, experts))), factor)


CAPACITY_EDGES = [
    CapacityCase(8, 4, 2, 1.0),  # exactly 4 slots
    CapacityCase(10, 4, 1, 1.25),  # 3.125 -> 4: rounded up, never down
    CapacityCase(7, 3, 2, 1.125),  # 5.25 -> 6
]


# -- the router ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RouterCase:
    tokens: int
    hidden: int
    num_experts: int
    k: int
    capacity_factor: float
    normalize: bool
    logits: str = "random"
    dtype: str = "float32"
    seed: int = 0
    world_size: int = 1
    x: torch.Tensor = field(default=None, compare=False, repr=False)
    weight: torch.Tensor = field(default=None, compare=False, repr=False)
    combine_grad: torch.Tensor = field(default=None, compare=False, repr=False)  # [T, E]
    loss_weights: tuple[float, float] = field(default=(1.0, 1.0), compare=False, repr=False)

    @property
    def capacity(self) -> int:
        return capacity(self.tokens, self.num_experts, self.k, self.capacity_factor)

    @property
    def numel(self) -> int:
        return self.x.numel()

    def __repr__(self) -> str:
        return (
            f"tokens={self.tokens}, hidden={self.hidden}, num_experts={self.num_experts}, k={self.k}, "
            f"capacity_factor={self.capacity_factor}, normalize={self.normalize}, "
            f"logits={self.logits!r}, dtype={self.dtype}, seed={self.seed}"
        )


def build_router(
    tokens, hidden, num_experts, k, capacity_factor, normalize, *, logits="random", dtype="float32", seed=0
) -> RouterCase:
    generator = _generator(seed)
    weight = router_weight(logits, num_experts, hidden, dtype, generator)
    x = tokens_for(logits, (tokens, hidden), dtype, generator)
    combine_grad = _randn(generator, dtype, tokens, num_experts)
    loss_weights = tuple(float(v) for v in torch.rand(2, generator=generator, dtype=torch.float64) + 0.5)
    return RouterCase(
        tokens,
        hidden,
        num_experts,
        k,
        capacity_factor,
        normalize,
        logits,
        dtype,
        seed,
        1,
        x,
        weight,
        combine_grad,
        loss_weights,
    )


@st.composite
def router_cases(draw, *, drops: bool = True, logits=LOGITS):
    """``drops=False``: an ample capacity, so that routing alone decides the result."""
    experts = draw(st.integers(1, 8))
    k = draw(st.integers(1, min(3, experts)))
    factor = draw(st.sampled_from(CAPACITY_FACTORS)) if drops else ample(experts, k)
    return build_router(
        draw(st.integers(1, 12)),
        draw(st.integers(1, 6)),
        experts,
        k,
        factor,
        draw(st.booleans()),
        logits=draw(st.sampled_from(logits)),
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


ROUTING_EDGES = [
    build_router(3, 2, 1, 1, 1.0, True, dtype="float64", seed=1),  # one expert takes everything
    build_router(5, 3, 4, 2, ample(4, 2), True, logits="ties", seed=2),  # exact ties
    build_router(6, 4, 6, 3, ample(6, 3), False, dtype="float64", seed=3),
]
CAPACITY_ROUTER_EDGES = [
    build_router(6, 2, 3, 1, 0.5, True, logits="skewed", seed=4),  # expert 0 full: later tokens dropped
    build_router(8, 3, 4, 2, 0.5, True, logits="ties", dtype="float64", seed=5),
    build_router(7, 4, 4, 2, 1.0, False, seed=6),  # second choices meet full experts
]
#: a token's second choice dropped by a full expert: its first choice keeps the gate it had before
#: the drop (the public gradients part sees drops too, not only the hidden one)
DROPPING_GRADIENT_EDGE = build_router(6, 2, 3, 2, 0.5, True, dtype="float64", seed=1)
LOSS_EDGES = [
    build_router(4, 3, 4, 2, 1.0, True, logits="uniform", dtype="float64", seed=7),  # aux loss = 1
    build_router(6, 3, 4, 1, 1.25, True, logits="skewed", dtype="float64", seed=8),  # aux loss near 4
    build_router(5, 2, 3, 2, 1.0, False, seed=9),
]


# -- the MoE layer -----------------------------------------------------------------------------------


def expert_weights(generator, dtype: str, num_experts: int, hidden: int, ffn: int) -> tuple:
    """Per expert ``(fc1.weight, fc1.bias, fc2.weight, fc2.bias)``."""
    return tuple(
        (
            _randn(generator, dtype, ffn, hidden) * hidden**-0.5,
            _randn(generator, dtype, ffn) * 0.1,
            _randn(generator, dtype, hidden, ffn) * ffn**-0.5,
            _randn(generator, dtype, hidden) * 0.1,
        )
        for _ in range(num_experts)
    )


@dataclass(frozen=True)
class LayerCase:
    tokens: int
    hidden: int
    ffn_hidden: int
    num_experts: int
    k: int
    capacity_factor: float
    normalize: bool
    logits: str = "random"
    dtype: str = "float32"
    seed: int = 0
    world_size: int = 1
    x: torch.Tensor = field(default=None, compare=False, repr=False)
    grad: torch.Tensor = field(default=None, compare=False, repr=False)
    router: torch.Tensor = field(default=None, compare=False, repr=False)
    experts: tuple = field(default=(), compare=False, repr=False)

    @property
    def numel(self) -> int:
        return self.x.numel()

    def __repr__(self) -> str:
        return (
            f"tokens={self.tokens}, hidden={self.hidden}, ffn_hidden={self.ffn_hidden}, "
            f"num_experts={self.num_experts}, k={self.k}, capacity_factor={self.capacity_factor}, "
            f"normalize={self.normalize}, logits={self.logits!r}, dtype={self.dtype}, seed={self.seed}"
        )


def build_layer(
    tokens,
    hidden,
    ffn,
    num_experts,
    k,
    capacity_factor,
    normalize,
    *,
    logits="random",
    dtype="float32",
    seed=0,
) -> LayerCase:
    generator = _generator(seed)
    router = router_weight(logits, num_experts, hidden, dtype, generator)
    x = tokens_for(logits, (tokens, hidden), dtype, generator)
    experts = expert_weights(generator, dtype, num_experts, hidden, ffn)
    grad = _randn(generator, dtype, tokens, hidden)
    return LayerCase(
        tokens,
        hidden,
        ffn,
        num_experts,
        k,
        capacity_factor,
        normalize,
        logits,
        dtype,
        seed,
        1,
        x,
        grad,
        router,
        experts,
    )


@st.composite
def layer_cases(draw):
    experts = draw(st.integers(1, 6))
    k = draw(st.integers(1, min(2, experts)))
    return build_layer(
        draw(st.integers(1, 10)),
        draw(st.integers(1, 5)),
        draw(st.integers(1, 6)),
        experts,
        k,
        draw(st.sampled_from(CAPACITY_FACTORS)),
        draw(st.booleans()),
        logits=draw(st.sampled_from(("random", "random", "skewed", "ties"))),
        dtype=draw(st.sampled_from(FLOATS)),
        seed=draw(S.seeds),
    )


LAYER_EDGES = [
    build_layer(2, 2, 3, 1, 1, 1.0, True, dtype="float64", seed=1),
    build_layer(6, 3, 4, 4, 2, 0.5, True, logits="skewed", seed=2),  # drops, idle experts
    build_layer(8, 4, 5, 3, 2, 1.25, False, dtype="float64", seed=3),
]
