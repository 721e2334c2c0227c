"""Worker side: what an optimizer wrapper (ZeRO, offload, ...) holds, measured while it trains.

A student's wrapper receives ``optimizer_cls`` and builds its inner optimizer from it. The
graders pass :func:`recording` of ``torch.optim.AdamW`` (or SGD): a subclass, made fresh for
every task, that behaves exactly like the original and keeps a note of every instance, so the
grader can read the optimizer state, the owned tensors and their gradients without trusting
anything the student reports.
"""

from __future__ import annotations

import torch

from graders.training.ledger import reachable_tensors, storage_bytes


class OptimizerLog:
    """Every inner optimizer built during a task, and the gradient bytes seen at their steps."""

    def __init__(self) -> None:
        self.instances: list[torch.optim.Optimizer] = []
        self.grad_bytes = 0  # most gradient bytes the owned tensors held at an inner step
        self.steps = 0

    def owned(self) -> list[torch.Tensor]:
        seen: dict[int, torch.Tensor] = {}
        for optimizer in self.instances:
            for group in optimizer.param_groups:
                for p in group["params"]:
                    seen.setdefault(id(p), p)
        return list(seen.values())

    def state_tensors(self) -> list[torch.Tensor]:
        return [
            value
            for optimizer in self.instances
            for state in optimizer.state.values()
            for value in state.values()
            if isinstance(value, torch.Tensor)
        ]

    def state_bytes(self) -> int:
        return storage_bytes(self.state_tensors())

    def owned_elements(self) -> int:
        return sum(p.numel() for p in self.owned())

    def summary(self) -> dict:
        return {
            "instances": len(self.instances),
            "steps": self.steps,
            "state_bytes": self.state_bytes(),
            "owned_elements": self.owned_elements(),
            "owned_grad_bytes": self.grad_bytes,
        }


def recording(optimizer_cls: type[torch.optim.Optimizer]) -> tuple[type, OptimizerLog]:
    """A fresh subclass of ``optimizer_cls`` that logs its instances, and the log."""
    log = OptimizerLog()

    class Recorded(optimizer_cls):  # type: ignore[misc, valid-type]
        def __init__(self, params, *args, **kwargs):
            super().__init__(params, *args, **kwargs)
            log.instances.append(self)

        def step(self, *args, **kwargs):
            grads = [p.grad for p in log.owned() if p.grad is not None]
            log.grad_bytes = max(log.grad_bytes, storage_bytes(grads))
            log.steps += 1
            return super().step(*args, **kwargs)

    Recorded.__name__ = optimizer_cls.__name__
    Recorded.__qualname__ = optimizer_cls.__qualname__
    return Recorded, log


def grad_bytes(params) -> int:
    return storage_bytes(p.grad for p in params if p.grad is not None)


def param_bytes(params) -> int:
    return storage_bytes(params)


def gradient_memory(optimizer: object, params, log: OptimizerLog) -> int:
    """Gradient bytes a data-parallel optimizer holds: every ``.grad`` of the parameters and of
    what it references, and every tensor it references that is neither a parameter, a tensor
    the inner optimizer steps, nor optimizer state (bucket buffers, reduced chunks, ...)."""
    params = list(params)
    tensors, grads = reachable_tensors(optimizer)
    grads += [p.grad for p in params if p.grad is not None]
    kept = storage_bytes(tensors, excluding=params + log.owned() + log.state_tensors())
    return kept + storage_bytes(grads, excluding=tensors)
