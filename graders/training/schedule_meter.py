"""Worker side: the order in which a module's forwards and backwards run, whoever calls it.

A pipeline executor is given a schedule; what it must do is run it: on every stage, each
forward once, each backward of it once, in the schedule's order, holding the activations of as
many microbatches as the schedule has in flight, no more and no fewer. :class:`ScheduleMeter`
puts hooks on the modules a stage runs through (the kit's stage in chapter 7; every attention
block of a rank's stage in the capstone) and records, per module:

* ``order``: ``["F", k]`` when its ``k``-th forward starts, ``["B", k]`` when the backward
  through that forward starts (the gradient of its output is computed), in the order they
  happen;
* ``peak``: the most forwards whose saved activations were alive at once
  (``torch.autograd.graph.saved_tensors_hooks``: a forward under ``no_grad`` saves none);
* ``intact``: whether the hooks were still in place at the end.

The counts live in closures: nothing graded code reaches by attribute holds them. The driver
compares ``order`` with the schedule (:mod:`graders.judge.schedule_order`).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


class _Saved:
    """A tensor autograd saved for backward, tagged with the forward call that saved it; its
    end (the graph freed after its backward, or dropped unused) is reported to ``release``.

    It keeps the tensor detached: a saved output would otherwise lead back to the node that
    saved it (output → grad_fn → saved value → output), a cycle only the garbage collector
    breaks, and a graph let go would seem alive until then."""

    __slots__ = ("tensor", "forward", "release")

    def __init__(self, tensor: torch.Tensor, forward: int, hold, release) -> None:
        self.tensor, self.forward, self.release = tensor.detach(), forward, release
        hold(forward)

    def __del__(self) -> None:
        self.release(self.forward)


def _unpack(saved: _Saved) -> torch.Tensor:
    return saved.tensor


class ScheduleMeter:
    """Hooks that record the forward and backward order of the modules given to :meth:`watch`;
    ``on_event(key, record)`` is called after each event (a progress note, say)."""

    def __init__(self, on_event: Callable[[str, dict], None] | None = None) -> None:
        self._on_event = on_event
        self._readers: dict[str, Callable[[], dict]] = {}

    def watch(self, module: nn.Module, key: str) -> None:
        live: dict[int, int] = {}
        record = {"order": [], "forwards": 0, "backwards": 0, "peak": 0}
        entered: list = []
        on_event = self._on_event

        def hold(forward: int) -> None:
            live[forward] = live.get(forward, 0) + 1
            record["peak"] = max(record["peak"], len(live))

        def release(forward: int) -> None:
            left = live.get(forward, 0) - 1
            if left > 0:
                live[forward] = left
            else:
                live.pop(forward, None)

        def before_forward(module, args):
            index = record["forwards"]
            record["forwards"] += 1
            record["order"].append(["F", index])
            hooks = torch.autograd.graph.saved_tensors_hooks(
                lambda t: _Saved(t, index, hold, release), _unpack
            )
            hooks.__enter__()
            entered.append((hooks, index))

        def after_forward(module, args, out):
            index = -1
            if entered:
                hooks, index = entered.pop()
                hooks.__exit__(None, None, None)
            if isinstance(out, torch.Tensor) and out.requires_grad:
                out.register_hook(lambda grad: backward_started(index))
            if on_event is not None:
                on_event(key, record)

        def backward_started(index: int) -> None:
            record["backwards"] += 1
            record["order"].append(["B", index])
            if on_event is not None:
                on_event(key, record)

        handles = [
            module.register_forward_pre_hook(before_forward),
            module.register_forward_hook(after_forward, always_call=True),
        ]

        def read() -> dict:
            intact = all(h.id in module._forward_pre_hooks or h.id in module._forward_hooks for h in handles)
            return {**record, "order": [list(e) for e in record["order"]], "intact": intact}

        self._readers[key] = read

    def read(self) -> dict[str, dict]:
        """``{key: {"order", "forwards", "backwards", "peak", "intact"}}``, plain data."""
        return {key: read() for key, read in self._readers.items()}
