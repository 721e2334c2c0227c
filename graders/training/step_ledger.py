"""Worker side: the bytes one real training step leaves in memory, by what they are for.

:func:`measure_step` trains a model for one step in a precision regime and reads the
``nbytes`` of what exists afterwards, before the gradients are freed:

* ``params``: the model's parameters (each once: a tied weight counts once);
* ``grads``: their gradients;
* ``master_weights``: the fp32 copies the optimizer steps in mixed precision (none otherwise);
* ``optimizer_states``: the optimizer's per-element state, the tensors in ``optimizer.state``
  shaped like a parameter (moments, momentum buffers, sums);
* ``counters``: the rest of ``optimizer.state`` (torch's step counters: a scalar per parameter
  tensor, not per element).

The precisions (``PRECISIONS``): ``fp32``, everything in float32; ``mixed``, the model in
bfloat16 and an fp32 master copy of every parameter that the optimizer steps (its state is then
float32); ``bf16``, everything in bfloat16, the optimizer stepping the model itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
import torch.nn.functional as F
from torch import nn

PRECISIONS = ("fp32", "mixed", "bf16")
MODEL_DTYPE = {"fp32": torch.float32, "mixed": torch.bfloat16, "bf16": torch.bfloat16}


def _nbytes(tensors: Iterable[torch.Tensor]) -> int:
    return sum(t.nbytes for t in tensors)


def _state_bytes(optimizer: torch.optim.Optimizer, params: list[torch.Tensor]) -> tuple[int, int]:
    """(bytes of per-element state, bytes of the rest) of ``optimizer.state``."""
    shapes = {id(p): p.shape for p in params}
    per_element = other = 0
    for param, state in optimizer.state.items():
        for value in state.values():
            if not isinstance(value, torch.Tensor):
                continue
            if value.shape == shapes.get(id(param)):
                per_element += value.nbytes
            else:
                other += value.nbytes
    return per_element, other


def measure_step(
    model: nn.Module,
    precision: str,
    make_optimizer: Callable[[list[torch.Tensor]], torch.optim.Optimizer],
    tokens: torch.Tensor,
    targets: torch.Tensor,
) -> dict[str, int]:
    """One step of ``model`` (logits out of ``tokens``, cross-entropy against ``targets``) in
    ``precision``, with ``make_optimizer(the tensors it steps)``; the bytes by role."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; choose from {', '.join(PRECISIONS)}")
    model = model.to(MODEL_DTYPE[precision])
    params = list(model.parameters())
    masters = [p.detach().float().clone().requires_grad_() for p in params] if precision == "mixed" else []
    stepped = masters or params
    optimizer = make_optimizer(stepped)
    logits = model(tokens)
    F.cross_entropy(logits.float().flatten(0, -2), targets.flatten()).backward()
    for param, master in zip(params, masters, strict=False):
        master.grad = param.grad.float()
    optimizer.step()
    if masters:
        with torch.no_grad():
            for param, master in zip(params, masters, strict=True):
                param.copy_(master)
    states, counters = _state_bytes(optimizer, stepped)
    return {
        "params": _nbytes(params),
        "grads": _nbytes(p.grad for p in params if p.grad is not None),
        "optimizer_states": states,
        "master_weights": _nbytes(masters),
        "counters": counters,
        "n_params": sum(p.numel() for p in params),
    }
