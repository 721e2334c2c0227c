"""Worker side: a forward and backward written by hand run only the math they need.

Where a contract says "by hand" (``Exercise.hand_written``: chapter 6's row layer and conjugate
mappings), :class:`HandWrittenMath`, a dispatch mode entered with the student block, admits
only what :mod:`graders.catalog.hand_math` lists (plain tensor math, views, reductions, copies
and the collectives) to the operators graded code runs, and refuses the rest, whatever Python
name reached them. Two more things are refused, because they are autodiff whatever operators
they run:

* an operator run by one of autograd's own nodes (``MmBackward0``, ...) for graded code: the
  engine differentiating a graph the code built (``torch.autograd.grad``, a functional
  ``vjp``, a compiled or scripted function that calls the engine);
* an operator autograd records (autograd on, an input that requires a gradient) is not
  refused but reported (``recorded``): a graph built on the side, which the ch6 checks name.

It also keeps the arithmetic, by direction (``forward``: no autograd node runs; ``backward``:
a custom Function's backward runs): the multiply-adds of every matrix product and the largest
tensor an operator made, for checks such as "a row layer's backward is two matmuls of the
layer's own shapes" (:mod:`graders.judge.arithmetic`).
"""

from __future__ import annotations

import sys
from collections import Counter
from functools import cache

import torch
from torch.autograd.function import BackwardCFunction
from torch.utils._python_dispatch import TorchDispatchMode

from graders.catalog.hand_math import ADMITTED, ADMITTED_NAMESPACES, MATMULS

#: taken when the kit is imported, before graded code could rebind it
_current_node = torch._C._current_autograd_node
_Tensor = torch.Tensor
_ADMITTED_TAGS = (torch.Tag.pointwise, torch.Tag.reduction)
WHY = "code written by hand runs plain tensor math, views, copies and the collectives, not autodiff"

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


def _is_view(op) -> bool:
    returns = op._schema.returns
    alias = returns[0].alias_info if returns else None
    return alias is not None and not alias.is_write


@cache
def admitted(op) -> bool:
    """Whether a hand-written forward or backward may run the operator ``op`` (an OpOverload)."""
    namespace, _, name = op._schema.name.partition("::")
    if namespace in ADMITTED_NAMESPACES:
        return True
    if namespace != "aten" or "backward" in name:  # autograd's own derivative kernels
        return False
    return _admitted_aten(name, op)


def _admitted_aten(name: str, op) -> bool:
    if name in ADMITTED:
        return True
    if name.startswith("_"):  # private: only what is listed
        return False
    if any(tag in op.tags for tag in _ADMITTED_TAGS) or _is_view(op):
        return True
    # an in-place variant (``squeeze_``) or a view's copy (``narrow_copy``) of what is admitted
    for suffix in ("_", "_copy"):
        base = name.removesuffix(suffix)
        packet = getattr(torch.ops.aten, base, None) if base != name else None
        if packet is not None and packet.overloads():
            return _admitted_aten(base, getattr(packet, packet.overloads()[0]))
    return False


def multiply_adds(name: str, args) -> int:
    """Multiply-adds of a matrix product ``aten::<name>`` on ``args`` (0 for any other op)."""
    tensors = [a for a in args if isinstance(a, _Tensor)]
    if name in ("addmm", "addmv", "baddbmm", "addbmm"):
        tensors = tensors[1:]  # the first is the addend
    if len(tensors) < 2:
        return 0
    a, b = tensors[0], tensors[1]
    if name in ("dot", "vdot"):
        return a.numel()
    if name in ("mv", "addmv"):
        return a.numel()
    # mm: [n, k] x [k, m]; bmm, baddbmm, addbmm: [batch, n, k] x [batch, k, m]
    return a.numel() * b.shape[-1]


def _needs_grad(values) -> bool:
    for value in values:
        if isinstance(value, _Tensor) and value.requires_grad:
            return True
        if isinstance(value, list | tuple) and _needs_grad(value):
            return True
    return False


def _largest(out) -> int:
    if isinstance(out, _Tensor):
        return out.numel()
    if isinstance(out, list | tuple):
        return max((_largest(item) for item in out), default=0)
    return 0


class HandWrittenMath(TorchDispatchMode):
    """Admits only the operators a hand-written forward and backward may run (see the module)."""

    def __init__(self, bans) -> None:
        super().__init__()
        self.bans = bans
        self.work = {"forward": Counter(), "backward": Counter()}
        self.recorded: Counter[str] = Counter()

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not self.bans.graded_request(sys._getframe(1)):
            return func(*args, **kwargs)
        name = func._schema.name
        node = _current_node()
        if node is not None and not isinstance(node, BackwardCFunction):
            self.bans.refuse(f"autograd:{type(node).__name__}", WHY)
        if not admitted(func):
            self.bans.refuse(f"operator:{name}", WHY)
        if torch.is_grad_enabled() and _needs_grad((*args, *kwargs.values())):
            self.recorded[name] += 1
        out = func(*args, **kwargs)
        work = self.work["backward" if node is not None else "forward"]
        short = name.partition("::")[2]
        if short in MATMULS:
            work["macs"] += multiply_adds(short, args)
        if not _is_view(func):
            work["largest"] = max(work["largest"], _largest(out))
        return out

    def take(self) -> dict:
        """Plain data for the task's reply, about what ran since the last call: the work by
        direction, and what autograd recorded that computes (plumbing aside)."""
        report = {
            "forward": dict(self.work["forward"]),
            "backward": dict(self.work["backward"]),
            "recorded": sorted(name for name in self.recorded if name not in PLUMBING_OPS),
        }
        self.work = {"forward": Counter(), "backward": Counter()}
        self.recorded = Counter()
        return report
