"""Training loops for the training chapters (data parallelism, ZeRO, ...).

* :func:`train_single_device` is the driver's reference: single-device training on the
  global batches, the named parameters after every step.
* :func:`data_parallel_steps` runs, in a worker, a training loop over a student's parallel
  wrapper and records a snapshot after every step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

import torch
from torch import nn

from graders.training.optimizers import FunctionalOptimizer, OptimizerSpec
from graders.training.tiny_lm import Batch, lm_loss, logits_loss, named_parameters


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


# -- worker side ----------------------------------------------------------------------------------


def report_gradients_ready(model: nn.Module, report: Callable[[str], None]) -> None:
    """Call ``report(name)`` the moment each trained parameter's gradient is complete.

    Register it before the student wraps ``model``: hooks run in the order they were
    registered, so the report comes before anything the student's own hook launches for that
    gradient, and the trace shows which gradients existed when each collective was launched.
    """
    seen: set[int] = set()
    for name, p in model.named_parameters():
        if p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            p.register_post_accumulate_grad_hook(lambda _, name=name: report(name))


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
    zero_grad: Callable[[], None] | None = None,
    mark: Callable[[str], None] = lambda label: None,
) -> list:
    """Worker side: one data-parallel training run of ``wrapper`` on this rank's rows.

    Every step: this rank takes shard ``shard`` of ``n`` of the global batch; with
    ``micro_batches`` k > 1 (one number, or one per step) it runs the first k - 1
    micro-batches inside ``no_sync()`` and scales each loss by 1/k, so the accumulated
    gradient is still this rank's mean. Then ``after_backward()`` (a gradient
    synchronisation), ``optimizer.step()``, and ``snapshot()`` is recorded.

    Gradients are cleared by ``zero_grad()`` at the start of every step when it is given (a
    student optimizer's own ``zero_grad``, which may keep buffers of its own), else by
    ``wrapper.zero_grad(set_to_none=True)`` right after every ``optimizer.step()``.

    ``mark`` receives, per step, ``no_sync_begin`` / ``no_sync_end`` (around the
    accumulation), ``forward_end`` and ``backward_end`` (right after the last forward and
    backward return) and ``step_end``, so the trace can be cut into phases.
    """
    history = []
    per_step = [micro_batches] * len(batches) if isinstance(micro_batches, int) else list(micro_batches)
    for batch, k in zip(batches, per_step, strict=True):
        if zero_grad is not None:
            zero_grad()
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
        del logits  # nothing of this step is kept past its backward by the loop itself
        mark("backward_end")
        if after_backward is not None:
            after_backward()
        if optimizer is not None:
            optimizer.step()
        if zero_grad is None:
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
