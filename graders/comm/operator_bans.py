"""Worker side: operators refused at the dispatcher, whatever Python route reached them.

A kernel such as ``aten::_fused_adam_`` has many names in Python (``torch._fused_adam_``,
``torch._VF._fused_adam_``, ``torch.ops.aten._fused_adam_.default``, ``torch._C._VariableFunctions``,
a functional optimizer with ``fused=True``), but every call of it reaches the dispatcher. An
exercise bans such operators with a pattern of their schema names (``"aten::_fused_*"`` in its
``banned`` set); while graded code runs, :class:`OperatorBans` (a dispatch mode the recorder enters
and leaves with the student block) refuses every call whose operator matches, when graded code
is behind it, like any banned object: recorded, then ``BannedCallError``.
"""

from __future__ import annotations

import fnmatch
import sys

from torch.utils._python_dispatch import TorchDispatchMode


def operator_patterns(banned) -> tuple[str, ...]:
    """The operator patterns among an exercise's banned names (``"namespace::name"``)."""
    return tuple(sorted(name for name in banned if "::" in name))


class OperatorBans(TorchDispatchMode):
    def __init__(self, bans, patterns: tuple[str, ...]) -> None:
        super().__init__()
        self.bans, self.patterns = bans, patterns

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func._schema.name
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.patterns):
            if self.bans.graded_request(sys._getframe(1)):
                self.bans.refuse("torch.ops." + name.replace("::", "."))
        return func(*args, **(kwargs or {}))
