"""Multi-step training for the graders of the training chapters (data parallelism, ZeRO, ...).

* :class:`OptimizerSpec` names an optimizer and its hyperparameters as plain data, so the
  driver and every worker build the same one; :func:`optimizer_specs` draws them.
* :func:`train_single_device` is the driver's reference: single-device training on the
  global batches, the named parameters after every step.
* :func:`data_parallel_steps` runs, in a worker, a training loop over a student's parallel
  wrapper and records a snapshot after every step.
* :func:`assert_history_close` compares a rank's parameters after every step with the
  reference, with :data:`TRAINING_TOLERANCES`, and names the first step and parameter
  that went wrong.

Every drawn optimizer has weight decay, so a parameter that gets no gradient but is stepped
anyway (a zero gradient where ``None`` was due) changes, and the comparison sees it. Where
both behaviours are legitimate (a flat, sharded buffer gives every element a gradient), the
grader passes the other history as ``also``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

import torch
from hypothesis import strategies as st
from torch import nn

from graders.checks import assert_tensor_equal, fail
from graders.errors import GradingFailure
from graders.models import Batch, lm_loss, logits_loss, named_parameters

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
    opt = FunctionalOptimizer(optimizer, params)  # torch's update, without importing torch._dynamo
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
        if not isinstance(got, dict):
            fail(
                f"{who}, after step {first_step + k}: expected named parameters, got {got!r:.80}.", case, hint
            )
        missing = sorted(set(expected[k]) - set(got))
        if missing:
            fail(
                f"{who}, after step {first_step + k}: no value for parameter(s) {', '.join(missing)}.",
                case,
                hint,
            )
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


# -- worker side ----------------------------------------------------------------------------------


def data_parallel_steps(
    wrapper: nn.Module,
    batches: list[Batch],
    *,
    shard: int,
    n: int,
    snapshot: Callable[[], object],
    optimizer: torch.optim.Optimizer | None = None,
    after_forward: Callable[[], None] | None = None,
    after_backward: Callable[[], None] | None = None,
    micro_batches: int | Sequence[int] = 1,
    no_sync: Callable[[], AbstractContextManager] | None = None,
    mark: Callable[[str], None] = lambda label: None,
) -> list:
    """Worker side: one data-parallel training run of ``wrapper`` on this rank's rows.

    Every step: this rank takes shard ``shard`` of ``n`` of the global batch; with
    ``micro_batches`` k > 1 (one number, or one per step) it runs the first k - 1
    micro-batches inside ``no_sync()`` and scales each loss by 1/k, so the accumulated
    gradient is still this rank's mean. Then
    ``after_backward()`` (a gradient synchronisation), ``optimizer.step()``, gradients set
    to ``None`` (``wrapper.zero_grad``), and ``snapshot()`` is recorded.

    ``mark`` receives, per step, ``no_sync_begin`` / ``no_sync_end`` (around the
    accumulation), ``forward_end`` and ``backward_end`` (right after the last forward and
    backward return) and ``step_end``, so the trace can be cut into phases.
    """
    history = []
    per_step = [micro_batches] * len(batches) if isinstance(micro_batches, int) else list(micro_batches)
    for batch, k in zip(batches, per_step, strict=True):
        local = batch.shard(shard, n)
        micro = [local.shard(i, k) for i in range(k)]
        if k > 1:
            mark("no_sync_begin")
            with no_sync():
                for part in micro[:-1]:
                    (_checked_loss(wrapper, part) / k).backward()
            mark("no_sync_end")
        logits = _checked_logits(wrapper, micro[-1])
        mark("forward_end")
        if after_forward is not None:
            after_forward()
        (logits_loss(logits, micro[-1].targets) / k).backward()
        mark("backward_end")
        if after_backward is not None:
            after_backward()
        if optimizer is not None:
            optimizer.step()
        wrapper.zero_grad(set_to_none=True)
        mark("step_end")
        history.append(snapshot())
    return history


def _checked_logits(wrapper: nn.Module, batch: Batch) -> torch.Tensor:
    logits = wrapper(batch.tokens)
    tokens = tuple(batch.tokens.shape)
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3 or tuple(logits.shape[:2]) != tokens:
        shape = tuple(logits.shape) if isinstance(logits, torch.Tensor) else type(logits).__name__
        raise TypeError(
            f"{type(wrapper).__name__}.forward returned {shape}; it must return what the wrapped "
            f"module returns (logits of shape {tokens} + (vocab,))"
        )
    return logits


def _checked_loss(wrapper: nn.Module, batch: Batch) -> torch.Tensor:
    return logits_loss(_checked_logits(wrapper, batch), batch.targets)
