"""Optimizers as plain data, for the graders of the training chapters.

* :class:`OptimizerSpec` names an optimizer and its hyperparameters as plain data, so the
  driver and every worker build the same one; :func:`optimizer_specs` draws them.
* :class:`FunctionalOptimizer` is the same update for the driver's references, without
  importing ``torch._dynamo``.

Every drawn optimizer has weight decay, so a parameter that gets no gradient but is stepped
anyway (a zero gradient where ``None`` was due) changes, and the comparison sees it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
from hypothesis import strategies as st
from torch import nn


@dataclass(frozen=True)
class OptimizerSpec:
    """``"sgd"`` (with ``momentum``) or ``"adamw"``, as plain data."""

    name: str
    lr: float
    weight_decay: float
    momentum: float = 0.0

    @property
    def optimizer_cls(self) -> type[torch.optim.Optimizer]:
        return {"sgd": torch.optim.SGD, "adamw": torch.optim.AdamW}[self.name]

    @property
    def hparams(self) -> dict[str, float]:
        """The keyword arguments of ``optimizer_cls`` (as a ZeRO wrapper receives them)."""
        if self.name == "sgd":
            return {"lr": self.lr, "momentum": self.momentum, "weight_decay": self.weight_decay}
        return {"lr": self.lr, "weight_decay": self.weight_decay}

    @property
    def states_per_element(self) -> int:
        """Tensors of state the optimizer keeps per element: AdamW's two moments, SGD's momentum."""
        if self.name == "adamw":
            return 2
        return 1 if self.momentum else 0

    def build(self, params: Iterable[nn.Parameter]) -> torch.optim.Optimizer:
        params = list(params)
        if self.name == "sgd":
            return torch.optim.SGD(params, lr=self.lr, momentum=self.momentum, weight_decay=self.weight_decay)
        if self.name == "adamw":
            return torch.optim.AdamW(params, lr=self.lr, weight_decay=self.weight_decay)
        raise ValueError(f"unknown optimizer {self.name!r}")

    def __repr__(self) -> str:
        if self.name == "sgd":
            return f"SGD(lr={self.lr}, momentum={self.momentum}, weight_decay={self.weight_decay})"
        return f"AdamW(lr={self.lr}, weight_decay={self.weight_decay})"


class FunctionalOptimizer:
    """The update of ``spec`` through torch's functional optimizers, for the driver's references.

    It runs the same code as ``torch.optim.SGD`` / ``torch.optim.AdamW`` take on CPU tensors
    (the single-tensor functional form, with the same state), but building one of those
    classes imports ``torch._dynamo`` on first use: about 3 s of a grading session that
    otherwise never needs it. Parameters whose ``.grad`` is None are skipped, as in torch.
    """

    def __init__(self, spec: OptimizerSpec, params: Iterable[torch.Tensor]) -> None:
        self.spec = spec
        self.params = list(params)
        self.state: dict[int, dict[str, torch.Tensor]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        from torch.optim.adam import adam
        from torch.optim.sgd import sgd

        live = [p for p in self.params if p.grad is not None]
        grads = [p.grad for p in live]
        if self.spec.name == "adamw":
            for p in live:
                self.state.setdefault(
                    id(p),
                    {
                        "step": torch.tensor(0.0, dtype=torch.float32),
                        "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
                        "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format),
                    },
                )
            states = [self.state[id(p)] for p in live]
            adam(
                live,
                grads,
                [s["exp_avg"] for s in states],
                [s["exp_avg_sq"] for s in states],
                [],
                [s["step"] for s in states],
                foreach=False,
                decoupled_weight_decay=True,
                amsgrad=False,
                beta1=0.9,
                beta2=0.999,
                lr=self.spec.lr,
                weight_decay=self.spec.weight_decay,
                eps=1e-8,
                maximize=False,
            )
            return
        buffers = [self.state.get(id(p), {}).get("momentum_buffer") for p in live]
        sgd(
            live,
            grads,
            buffers,
            foreach=False,
            weight_decay=self.spec.weight_decay,
            momentum=self.spec.momentum,
            lr=self.spec.lr,
            dampening=0.0,
            nesterov=False,
            maximize=False,
        )
        if self.spec.momentum:
            for p, buffer in zip(live, buffers, strict=True):
                self.state[id(p)] = {"momentum_buffer": buffer}


def optimizer_specs(
    names: tuple[str, ...] = ("sgd", "adamw"), dtype: str = "float64"
) -> st.SearchStrategy[OptimizerSpec]:
    """Optimizers with weight decay. AdamW is drawn only for float64 parameters.

    Adam divides by sqrt(v): a gradient element that is almost zero (a nearly dead ReLU) and
    differs between two valid summation orders by a float32 rounding error can take steps of
    different size, or even sign, up to ``lr``. Correct code would then fail at random; in
    float64 the rounding error is 10^9 times smaller and the effect vanishes.
    """
    if dtype != "float64" and "sgd" in names:
        names = tuple(n for n in names if n != "adamw")
    sgd = st.builds(
        OptimizerSpec,
        name=st.just("sgd"),
        lr=st.sampled_from((0.05, 0.2)),
        weight_decay=st.sampled_from((0.05, 0.2)),
        momentum=st.sampled_from((0.0, 0.9)),
    )
    adamw = st.builds(
        OptimizerSpec,
        name=st.just("adamw"),
        lr=st.sampled_from((0.01, 0.03)),
        weight_decay=st.sampled_from((0.05, 0.2)),
    )
    chosen = [s for n, s in (("sgd", sgd), ("adamw", adamw)) if n in names]
    return st.one_of(*chosen)
