"""Worker side: how many elements the optimizer class handed to graded code builds and steps.

Where a contract names the algorithm (the capstone's ZeRO-1: each dp rank runs the inner
optimizer on its 1/dp shard), the bytes on the wire cannot tell it from plain data parallelism
(an all-reduce costs a reduce-scatter plus an all-gather). The kit therefore hands graded code a
subclass of the optimizer class the contract names, which counts the elements each instance is
built with and steps. The subclass is the kit's code (its frames are the kit's), and behaves as
its base in every other way.
"""

from __future__ import annotations


def _elements(optimizer) -> int:
    return sum(p.numel() for group in optimizer.param_groups for p in group["params"])


def _stepped(optimizer) -> int:
    return sum(p.numel() for group in optimizer.param_groups for p in group["params"] if p.grad is not None)


class OptimizerWatch:
    """``cls`` is ``base`` counted: ``report()`` gives the elements every instance was built with
    (``built``) and, per training step (:meth:`step_ended`), the elements stepped (``stepped``)."""

    def __init__(self, base: type) -> None:
        self.built: list[int] = []
        self.stepped: list[int] = []
        self._this_step = 0
        self.cls = self._counted(base)

    def _counted(self, base: type) -> type:
        watch = self

        class Counted(base):
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                watch.built.append(_elements(self))

            def step(self, *args, **kwargs):
                watch._this_step += _stepped(self)
                return super().step(*args, **kwargs)

        Counted.__name__, Counted.__qualname__ = base.__name__, base.__qualname__
        Counted.__module__ = base.__module__
        return Counted

    def step_ended(self) -> None:
        self.stepped.append(self._this_step)
        self._this_step = 0

    def report(self) -> dict:
        return {"built": list(self.built), "stepped": list(self.stepped)}
