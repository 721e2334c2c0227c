"""Worker side: the inner optimizers an optimizer wrapper (ZeRO, offload, ...) builds.

A student's wrapper receives ``optimizer_cls`` and builds its inner optimizer from it. The
graders pass :func:`recording` of ``torch.optim.AdamW`` (or SGD): a subclass, made fresh for
every task, that behaves exactly like the original and keeps a note of every instance, so the
grader can read the tensors it steps and their state (offload's placement, the cross-check
with torch). Memory promises never rely on it: state built by any other class is just as
alive, and the live ledger counts it by what it is.
"""

from __future__ import annotations

import torch

from graders.training.ledger import storage_bytes


class OptimizerLog:
    """Every inner optimizer built during a task, and how many steps they took."""

    def __init__(self) -> None:
        self.instances: list[torch.optim.Optimizer] = []
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
        }


def recording(optimizer_cls: type[torch.optim.Optimizer]) -> tuple[type, OptimizerLog]:
    """A fresh subclass of ``optimizer_cls`` that logs its instances, and the log."""
    log = OptimizerLog()

    class Recorded(optimizer_cls):  # type: ignore[misc, valid-type]
        def __init__(self, params, *args, **kwargs):
            super().__init__(params, *args, **kwargs)
            log.instances.append(self)

        def step(self, *args, **kwargs):
            log.steps += 1
            return super().step(*args, **kwargs)

    Recorded.__name__ = optimizer_cls.__name__
    Recorded.__qualname__ = optimizer_cls.__qualname__
    return Recorded, log
