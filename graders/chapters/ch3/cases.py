"""The examples chapter 3 draws, and their one-line reproductions.

An optimizer case is a few parameters of random shapes, split into one or two param groups (the
second overriding one hyperparameter), and a few steps; at each step every parameter gets a
gradient or none (``None``: the parameter is skipped that step). Tensor data is derived from the
drawn seed in the driver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.judge import strategies as S

#: the exercise -> the class the student writes
CLASSES = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "adagrad": "Adagrad", "lion": "Lion"}

#: hyperparameter -> the values drawn, per optimizer (each drawn value is exact in binary or a
#: round decimal torch's own code uses as it is)
HYPERPARAMETERS: dict[str, dict[str, tuple]] = {
    "sgd": {
        "lr": (0.01, 0.1, 0.5),
        "momentum": (0.0, 0.5, 0.9),
        "weight_decay": (0.0, 0.01, 0.1),
        "nesterov": (False, True),
    },
    "adam": {
        "lr": (1e-3, 1e-2, 0.1),
        "betas": ((0.9, 0.999), (0.8, 0.99), (0.5, 0.9)),
        "eps": (1e-8, 1e-6, 1e-3),
        "weight_decay": (0.0, 0.01, 0.1),
        "amsgrad": (False, True),
    },
    "adagrad": {
        "lr": (0.01, 0.1, 0.5),
        "lr_decay": (0.0, 0.01, 0.1),
        "weight_decay": (0.0, 0.01, 0.1),
        "initial_accumulator_value": (0.0, 0.1, 1.0),
        "eps": (1e-10, 1e-6, 1e-3),
    },
    "lion": {
        "lr": (1e-4, 1e-3, 1e-2),
        "betas": ((0.9, 0.99), (0.95, 0.98), (0.5, 0.9)),
        "weight_decay": (0.0, 0.1, 1.0),
    },
}
HYPERPARAMETERS["adamw"] = HYPERPARAMETERS["adam"]
#: never overridden by a group: nesterov needs its group's momentum, and torch's Adagrad fills its
#: sums at construction with the constructor's initial_accumulator_value, whatever a group says
NOT_OVERRIDDEN = {"nesterov", "initial_accumulator_value"}


@dataclass(frozen=True)
class OptimizerCase:
    """``optimizer`` built over ``groups`` (parameter indices per group; group ``i > 0`` adds the
    ``overrides[i]`` pair) with ``hparams``, then stepped once per entry of ``grads``: parameter
    ``j`` has a gradient at step ``s`` when ``grads[s][j]``."""

    optimizer: str
    shapes: tuple[tuple[int, ...], ...]
    groups: tuple[tuple[int, ...], ...]
    hparams: tuple[tuple[str, object], ...]
    overrides: tuple[tuple[str, object] | None, ...]
    grads: tuple[tuple[bool, ...], ...]
    dtype: str = "float32"
    seed: int = 0
    world_size: int = 1
    #: after this many steps, the optimizer is saved (state_dict) and a fresh one over copies of
    #: the parameters is loaded from it and steps on (None: no round trip)
    resume_at: int | None = None
    params: tuple = field(default=(), compare=False, repr=False)
    gradients: tuple = field(default=(), compare=False, repr=False)  # [step][param] tensor or None

    @property
    def steps(self) -> int:
        return len(self.grads)

    @property
    def numel(self) -> int:
        return sum(math.prod(shape) for shape in self.shapes)

    @property
    def parameter_bytes(self) -> int:
        return self.numel * torch.empty((), dtype=getattr(torch, self.dtype)).element_size()

    def fresh_params(self) -> list[torch.Tensor]:
        return [p.clone().requires_grad_() for p in self.params]

    def param_groups(self, params: list[torch.Tensor]) -> list[dict]:
        groups = []
        for members, override in zip(self.groups, self.overrides, strict=True):
            group = {"params": [params[j] for j in members]}
            if override is not None:
                group[override[0]] = override[1]
            groups.append(group)
        return groups

    def group_of(self, j: int) -> int:
        return next(i for i, members in enumerate(self.groups) if j in members)

    def hyper_of(self, j: int) -> dict:
        """The hyperparameters parameter ``j`` is stepped with (its group's)."""
        override = self.overrides[self.group_of(j)]
        return dict(self.hparams) | (dict([override]) if override is not None else {})

    def __repr__(self) -> str:
        hyper = ", ".join(f"{k}={v}" for k, v in self.hparams)
        groups = "; ".join(
            f"params {list(members)}" + (f" with {o[0]}={o[1]}" if o is not None else "")
            for members, o in zip(self.groups, self.overrides, strict=True)
        )
        grads = " ".join("".join("g" if has else "-" for has in step) for step in self.grads)
        resume = f", state_dict round trip after step {self.resume_at}" if self.resume_at is not None else ""
        return (
            f"{CLASSES[self.optimizer]}({hyper}), shapes={list(self.shapes)}, groups=[{groups}], "
            f"grads per step (g: a gradient, -: None)={grads}, dtype={self.dtype}, seed={self.seed}{resume}"
        )


def build_case(
    optimizer, shapes, groups, hparams, overrides, grads, *, dtype="float32", seed=0, resume_at=None
) -> OptimizerCase:
    generator = S.seeded_generator(seed)
    params = tuple(S.make_tensor(shape, dtype, generator) for shape in shapes)
    gradients = tuple(
        tuple(
            S.make_tensor(shape, dtype, generator) if has else None
            for shape, has in zip(shapes, step, strict=True)
        )
        for step in grads
    )
    return OptimizerCase(
        optimizer,
        tuple(map(tuple, shapes)),
        tuple(map(tuple, groups)),
        tuple(hparams),
        tuple(overrides),
        tuple(map(tuple, grads)),
        dtype,
        seed,
        1,
        resume_at,
        params,
        gradients,
    )


def _hparams(draw, optimizer: str) -> list[tuple[str, object]]:
    values = {name: draw(st.sampled_from(choices)) for name, choices in HYPERPARAMETERS[optimizer].items()}
    if optimizer == "sgd" and values["momentum"] == 0:
        values["nesterov"] = False  # torch refuses nesterov without momentum
    return list(values.items())


@st.composite
def optimizer_cases(
    draw,
    optimizer: str,
    *,
    min_steps: int = 1,
    max_steps: int = 5,
    every_param_stepped: bool = False,
    resume: bool = False,
    dtypes: tuple[str, ...] = S.FLOAT_DTYPES,
):
    """Up to four parameters (shapes of up to 64 elements, a scalar now and then), one or two
    groups, ``min_steps`` to ``max_steps`` steps, about a quarter of the gradients None (each
    parameter has one at some step when ``every_param_stepped``); with ``resume``, a state_dict
    round trip after a step in the middle."""
    count = draw(st.integers(1, 4))
    shapes = [draw(st.one_of(st.just(()), S.shapes(max_dims=3, max_numel=64))) for _ in range(count)]
    shapes = [shape if math.prod(shape) else (1,) for shape in shapes]  # no empty parameters
    hparams = _hparams(draw, optimizer)
    groups, overrides = [tuple(range(count))], [None]
    if count > 1 and draw(st.booleans()):
        cut = draw(st.integers(1, count - 1))
        name = draw(st.sampled_from(sorted(set(HYPERPARAMETERS[optimizer]) - NOT_OVERRIDDEN)))
        others = [v for v in HYPERPARAMETERS[optimizer][name] if v != dict(hparams)[name]]
        groups, overrides = (
            [tuple(range(cut)), tuple(range(cut, count))],
            [None, (name, draw(st.sampled_from(others)))],
        )
    steps = draw(st.integers(min_steps, max_steps))
    grads = [[draw(st.sampled_from((True, True, True, False))) for _ in range(count)] for _ in range(steps)]
    for j in range(count):
        if every_param_stepped or j == 0:
            if not any(step[j] for step in grads):
                grads[draw(st.integers(0, steps - 1))][j] = True
    return build_case(
        optimizer,
        shapes,
        groups,
        hparams,
        overrides,
        grads,
        dtype=draw(st.sampled_from(dtypes)),
        seed=draw(S.seeds),
        resume_at=draw(st.integers(1, steps - 1)) if resume and steps > 1 else None,
    )


def _edges(optimizer: str, hyper: dict, override: tuple[str, object]) -> list[OptimizerCase]:
    hparams = list(hyper.items())
    return [
        build_case(optimizer, [(3,)], [(0,)], hparams, [None], [[True]], dtype="float64", seed=1),
        # a parameter without a gradient at its first steps: its own step count starts later
        build_case(
            optimizer,
            [(2, 3), (4,)],
            [(0,), (1,)],
            hparams,
            [None, override],
            [[True, False], [True, False], [True, True], [False, True]],
            seed=2,
        ),
        build_case(
            optimizer,
            [(), (5,), (2, 2, 2)],
            [(0, 1, 2)],
            hparams,
            [None],
            [[True, True, True]] * 3,
            dtype="float64",
            seed=3,
        ),
        # a layer whose parameters dwarf the Python data an optimizer may keep: anything kept per
        # element would be many times the allowance (the memory promise holds by scale)
        build_case(optimizer, [(96, 96), (7,)], [(0, 1)], hparams, [None], [[True, True]] * 3, seed=4),
    ]


EDGES = {
    "sgd": _edges("sgd", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1, "nesterov": True}, ("lr", 0.01)),
    "adam": _edges(
        "adam",
        {"lr": 0.1, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1, "amsgrad": True},
        ("lr", 0.01),
    ),
    "adamw": _edges(
        "adamw",
        {"lr": 0.1, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1, "amsgrad": False},
        ("lr", 0.01),
    ),
    "adagrad": _edges(
        "adagrad",
        {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.1, "eps": 1e-6},
        ("lr", 0.5),
    ),
    "lion": _edges("lion", {"lr": 1e-2, "betas": (0.5, 0.9), "weight_decay": 1.0}, ("lr", 1e-3)),
}


# -- state_memory.py ------------------------------------------------------------------------------------

STATE_NAMES = ("sgd", "sgd_momentum", "adam", "adam_amsgrad", "adamw", "adagrad", "lion")
STATE_DTYPES = ("float32", "float64", "bfloat16", "float16")
PRECISIONS = ("fp32", "mixed", "bf16")


@dataclass(frozen=True)
class StateBytesCase:
    """``optimizer_state_bytes(name, n_params, dtype)`` for parameters of ``shapes``."""

    name: str
    shapes: tuple[tuple[int, ...], ...]
    dtype: str
    world_size: int = 1

    @property
    def n_params(self) -> int:
        return sum(math.prod(shape) for shape in self.shapes)

    def __repr__(self) -> str:
        return f"name={self.name!r}, n_params={self.n_params}, dtype=torch.{self.dtype}"


@st.composite
def state_bytes_cases(draw):
    shapes = draw(st.lists(S.shapes(max_dims=2, max_numel=200), min_size=1, max_size=3))
    shapes = [shape if math.prod(shape) else (1,) for shape in shapes]
    return StateBytesCase(
        draw(st.sampled_from(STATE_NAMES)), tuple(shapes), draw(st.sampled_from(STATE_DTYPES))
    )


STATE_EDGES = [
    StateBytesCase("sgd", ((3,),), "float32"),
    StateBytesCase("adam", ((4, 5), (5,)), "float32"),
    StateBytesCase("adam_amsgrad", ((7,),), "bfloat16"),
]


@dataclass(frozen=True)
class KCase:
    """``bytes_per_param(precision, optimizer)``, measured on the kit's GPT of ``layers`` blocks."""

    precision: str
    optimizer: str
    layers: int = 1
    world_size: int = 1

    def __repr__(self) -> str:
        return f"precision={self.precision!r}, optimizer={self.optimizer!r}"


def k_cases():
    return st.builds(KCase, st.sampled_from(PRECISIONS), st.sampled_from(STATE_NAMES), st.integers(1, 2))


K_EDGES = [KCase("mixed", "adam"), KCase("fp32", "sgd"), KCase("bf16", "sgd_momentum")]
