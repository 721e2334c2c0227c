"""Worker side: the operations autograd records while graded code runs, seen at the dispatcher.

A backward written by hand makes autograd record nothing: inside a custom Function's forward and
backward autograd is off, and the code that calls the Function only moves values (views,
reshapes). A graph built on the side (in forward under ``enable_grad``, or in backward, on
detached copies) and then run by autograd's engine, or by calling its nodes directly, is recorded
when it is built: its operations reach the dispatcher with autograd on and an input that requires
a gradient. A dispatch mode sees each of them, whatever Python route reached it, and a
saved-tensors hook of the code's own, which shadows the kit's hooks, cannot hide them.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

#: operations that only move, reshape or copy values: autograd may record them around a
#: hand-written Function (the layer reshapes its input, say)
PLUMBING_OPS = frozenset(
    "aten::" + name
    for name in (
        "view",
        "_unsafe_view",
        "reshape",
        "t",
        "transpose",
        "permute",
        "expand",
        "clone",
        "contiguous",
        "squeeze",
        "unsqueeze",
        "alias",
        "detach",
        "_to_copy",
        "slice",
        "select",
        "narrow",
        "split",
        "split_with_sizes",
        "chunk",
        "unbind",
        "as_strided",
        "flatten",
        "unflatten",
        "lift_fresh",
    )
)


def _needs_grad(values) -> bool:
    for value in values:
        if isinstance(value, torch.Tensor) and value.requires_grad:
            return True
        if isinstance(value, list | tuple) and _needs_grad(value):
            return True
    return False


class RecordedOps(TorchDispatchMode):
    """Counts the operations autograd records (autograd on, an input that requires a gradient)
    that graded code runs: ``graded(frame)`` says whether graded code is behind a call."""

    def __init__(self, graded: Callable[[object], bool]) -> None:
        super().__init__()
        self.graded = graded
        self.ops: Counter[str] = Counter()

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if torch.is_grad_enabled() and _needs_grad((*args, *kwargs.values())):
            if self.graded(sys._getframe(1)):
                self.ops[func._schema.name] += 1
        return func(*args, **kwargs)

    def computed(self) -> list[str]:
        """The recorded operations that compute (plumbing aside), by name."""
        return sorted(name for name in self.ops if name not in PLUMBING_OPS)
