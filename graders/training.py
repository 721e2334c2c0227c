"""Multi-step training for the graders of the training chapters (data parallelism, ZeRO, ...).

* :class:`OptimizerSpec` names an optimizer and its hyperparameters as plain data, so the
  driver and every worker build the same one; :func:`optimizer_specs` draws them.
* :func:`train_single_device` is the driver's reference: single-device training on the
  global batches, the named parameters after every step.
* :func:`assert_history_close` compares a rank's parameters after every step with the
  reference, with :data:`TRAINING_TOLERANCES`, and names the first step and parameter
  that went wrong.

Every drawn optimizer has weight decay, so a parameter that gets no gradient but is stepped
anyway (a zero gradient where ``None`` was due) changes, and the comparison sees it. Where
both behaviours are legitimate (a flat, sharded buffer gives every element a gradient), the
grader passes the other history as ``also``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
from hypothesis import strategies as st
from torch import nn

from graders.checks import assert_tensor_equal, fail
from graders.errors import GradingFailure
from graders.models import Batch, lm_loss, named_parameters

#: (rtol, atol) per dtype for parameters after a few optimizer steps. A parallel run sums the
#: gradient average in another order than one device; in float32 that moves parameters by a
#: few ulps per step, and Adam's normalisation can amplify it. Bugs move them by ~lr.
TRAINING_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-9, 1e-12),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-3),
    torch.bfloat16: (5e-2, 1e-2),
}


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

    def build(self, params: Iterable[nn.Parameter]) -> torch.optim.Optimizer:
        return self.optimizer_cls(list(params), **self.hparams)

    def __repr__(self) -> str:
        if self.name == "sgd":
            return f"SGD(lr={self.lr}, momentum={self.momentum}, weight_decay={self.weight_decay})"
        return f"AdamW(lr={self.lr}, weight_decay={self.weight_decay})"


def optimizer_specs(names: tuple[str, ...] = ("sgd", "adamw")) -> st.SearchStrategy[OptimizerSpec]:
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


def trainable(model: nn.Module) -> list[nn.Parameter]:
    """The parameters an optimizer steps: ``requires_grad``, each tied tensor once."""
    return [p for p in model.parameters() if p.requires_grad]


def train_single_device(
    model: nn.Module,
    batches: list[Batch],
    optimizer: OptimizerSpec,
    *,
    zero_missing_grads: bool = False,
) -> list[dict[str, torch.Tensor]]:
    """Single-device training on the global batches; the named parameters after every step.

    ``zero_missing_grads`` gives a trainable parameter that got no gradient a zero gradient
    before the step (what a flat, sharded parameter does) instead of skipping it.
    """
    params = trainable(model)
    opt = optimizer.build(params)
    history = []
    for batch in batches:
        opt.zero_grad(set_to_none=True)
        lm_loss(model, batch.tokens, batch.targets).backward()
        if zero_missing_grads:
            for p in params:
                if p.grad is None:
                    p.grad = torch.zeros_like(p)
        opt.step()
        history.append(named_parameters(model))
    return history


def assert_history_close(
    history,
    expected: list[dict[str, torch.Tensor]],
    *,
    who: str,
    case=None,
    hint: str = "",
    also: list[dict[str, torch.Tensor]] | None = None,
    first_step: int = 1,
) -> None:
    """``history[k][name]`` must match ``expected[k][name]`` for every step k and parameter.

    ``who`` names whose parameters these are ("rank 2", "torch DDP on rank 0"); the first
    step at which a parameter differs is the one reported. ``also`` is another acceptable
    history: a parameter passes if all its steps match ``expected`` or all match ``also``.
    ``first_step`` numbers the first entry in messages (3 when only the last of 3 is given).
    """
    steps = len(expected)
    if not isinstance(history, list) or len(history) != steps:
        fail(f"{who}: expected the parameters after each of {steps} steps, got {history!r:.80}.", case, hint)
    for k, got in enumerate(history):
        step = first_step + k
        if not isinstance(got, dict):
            fail(f"{who}, after step {step}: expected named parameters, got {got!r:.80}.", case, hint)
        missing = sorted(set(expected[k]) - set(got))
        if missing:
            fail(f"{who}, after step {step}: no value for parameter(s) {', '.join(missing)}.", case, hint)
    for name in expected[0]:
        try:
            _assert_parameter_history(history, expected, name, who, case, hint, first_step)
        except GradingFailure:
            if also is None:
                raise
            try:
                _assert_parameter_history(history, also, name, who, case, hint, first_step)
            except GradingFailure:
                pass
            else:
                continue
            raise


def _assert_parameter_history(history, expected, name, who, case, hint, first_step) -> None:
    last = first_step + len(expected) - 1
    for k, (got, want) in enumerate(zip(history, expected, strict=True)):
        assert_tensor_equal(
            got[name],
            want[name],
            what=f"{who}, after step {first_step + k} of {last}: parameter {name!r}",
            case=case,
            hint=hint,
            tolerances=TRAINING_TOLERANCES,
        )
