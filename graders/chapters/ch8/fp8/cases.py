"""The FP8 examples of chapter 8, and their one-line reproductions.

A tensor is drawn at a magnitude ``10 ** magnitude`` (from far below FP8's smallest normal
number to far above its largest), and ``special`` writes values the rules are about into it:
``"zeros"`` (all of it: amax 0), ``"inf"`` (±inf here and there), ``"nan"``, ``"mixed"`` (all of
those and some zeros).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.judge import strategies as S

FORMATS = ("e4m3", "e5m2")
SPECIALS = ("zeros", "inf", "nan", "mixed")


def make_values(generator, shape, magnitude: int, special: str = "") -> torch.Tensor:
    x = torch.randn(shape, generator=generator, dtype=torch.float32) * 10.0**magnitude
    flat = x.view(-1)
    if special == "zeros":
        return torch.zeros(shape, dtype=torch.float32)
    if flat.numel() and special in ("inf", "mixed"):
        flat[0], flat[-1] = float("inf"), float("-inf")
    if flat.numel() > 1 and special in ("nan", "mixed"):
        flat[flat.numel() // 2] = float("nan")
    if flat.numel() > 2 and special == "mixed":
        flat[1] = 0.0
    return x


@dataclass(frozen=True)
class QuantizeCase:
    shape: tuple[int, ...]
    fmt: str
    magnitude: int
    special: str = ""
    seed: int = 0
    world_size: int = 1
    x: torch.Tensor = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:
        special = f", special={self.special!r}" if self.special else ""
        return (
            f"shape={self.shape}, fmt={self.fmt!r}, magnitude=1e{self.magnitude}{special}, seed={self.seed}"
        )


def build_quantize(shape, fmt, magnitude, special="", seed=0) -> QuantizeCase:
    x = make_values(S.seeded_generator(seed), shape, magnitude, special)
    return QuantizeCase(tuple(shape), fmt, magnitude, special, seed, 1, x)


@st.composite
def quantize_cases(draw, *, specials=("",)):
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    return build_quantize(
        shape,
        draw(st.sampled_from(FORMATS)),
        draw(st.integers(-8, 8)),
        draw(st.sampled_from(specials)),
        draw(S.seeds),
    )


QUANTIZE_EDGES = [
    build_quantize((3,), "e4m3", 0, seed=1),
    build_quantize((2, 4), "e5m2", -7, seed=2),  # far below e5m2's normal range before scaling
    build_quantize((4, 3), "e4m3", 6, seed=3),
]
RULES_EDGES = [
    build_quantize((4,), "e4m3", 0, "zeros", seed=4),  # amax 0: scale 1
    build_quantize((2, 3), "e5m2", 2, "inf", seed=5),  # ±inf saturate, never stay inf
    build_quantize((5,), "e4m3", -3, "mixed", seed=6),
]


@dataclass(frozen=True)
class DelayedCase:
    fmt: str
    history_len: int
    margin: int
    magnitudes: tuple[int, ...]  # per step
    zero_steps: tuple[bool, ...]  # per step: an all-zero tensor
    seed: int = 0
    world_size: int = 1
    xs: tuple[torch.Tensor, ...] = field(default=(), compare=False, repr=False)

    def __repr__(self) -> str:
        return (
            f"fmt={self.fmt!r}, history_len={self.history_len}, margin={self.margin}, "
            f"magnitudes={self.magnitudes}, zero_steps={self.zero_steps}, seed={self.seed}"
        )


def build_delayed(fmt, history_len, margin, magnitudes, zero_steps, seed=0) -> DelayedCase:
    generator = S.seeded_generator(seed)
    xs = tuple(
        make_values(generator, (3, 4), m, "zeros" if zero else "")
        for m, zero in zip(magnitudes, zero_steps, strict=True)
    )
    return DelayedCase(fmt, history_len, margin, tuple(magnitudes), tuple(zero_steps), seed, 1, xs)


@st.composite
def delayed_cases(draw):
    steps = draw(st.integers(1, 10))
    return build_delayed(
        draw(st.sampled_from(FORMATS)),
        draw(st.integers(1, 6)),
        draw(st.integers(0, 3)),
        tuple(draw(st.lists(st.integers(-3, 3), min_size=steps, max_size=steps))),
        tuple(draw(st.lists(st.sampled_from((False, False, False, True)), min_size=steps, max_size=steps))),
        draw(S.seeds),
    )


DELAYED_EDGES = [
    build_delayed("e4m3", 1, 0, (0, 0), (False, False), seed=1),
    build_delayed(
        "e4m3", 2, 1, (0, 2, -2, -2, 0), (False, False, False, True, False), seed=2
    ),  # a jump saturates
    build_delayed("e5m2", 3, 0, (1, -1, -1, -1, 1, 1), (False, True, False, False, False, False), seed=3),
]


@dataclass(frozen=True)
class Fp8LinearCase:
    rows: int
    in_features: int
    out_features: int
    fmt: str
    magnitude: int
    seed: int = 0
    world_size: int = 1
    x: torch.Tensor = field(default=None, compare=False, repr=False)
    weight: torch.Tensor = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:
        return (
            f"x_shape={(self.rows, self.in_features)}, weight_shape={(self.out_features, self.in_features)}, "
            f"fmt={self.fmt!r}, magnitude=1e{self.magnitude}, seed={self.seed}"
        )


def build_fp8_linear(rows, in_features, out_features, fmt, magnitude, seed=0) -> Fp8LinearCase:
    generator = S.seeded_generator(seed)
    x = make_values(generator, (rows, in_features), magnitude)
    weight = make_values(generator, (out_features, in_features), 0) * 0.1
    return Fp8LinearCase(rows, in_features, out_features, fmt, magnitude, seed, 1, x, weight)


@st.composite
def fp8_linear_cases(draw):
    return build_fp8_linear(
        draw(st.integers(1, 8)),
        draw(st.integers(1, 16)),
        draw(st.integers(1, 8)),
        draw(st.sampled_from(FORMATS)),
        draw(st.integers(-4, 4)),
        draw(S.seeds),
    )


FP8_LINEAR_EDGES = [
    build_fp8_linear(1, 2, 1, "e4m3", 0, seed=1),
    build_fp8_linear(4, 8, 3, "e5m2", 3, seed=2),
    build_fp8_linear(6, 16, 5, "e4m3", -4, seed=3),
]
