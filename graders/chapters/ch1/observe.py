"""Worker side: what a rank of the first DDP script did, seen from outside the script.

:class:`ScriptObserver`, entered around the script, notes

* every training forward pass: the rows the outermost module was handed, and that module's
  class (a global forward hook on every ``nn.Module``; passes under ``torch.no_grad()``, such as
  an evaluation, are not training and are left out);
* every ``torch.save``: where it wrote (the function's code is swapped, so every route to it,
  ``torch.save`` or ``torch.serialization.save``, is seen);
* what the script printed (``sys.stdout``; torch's warnings go to ``sys.stderr`` and are not
  the script's logging).
"""

from __future__ import annotations

import contextlib
import io
import os

import torch
import torch.serialization
from torch.nn.modules import module as torch_module

from graders.comm.guard import clone, swap_code


class ScriptObserver:
    def __init__(self) -> None:
        self.forwards: list[tuple[str, torch.Tensor | None]] = []
        self.saves: list[str] = []
        self.printed = io.StringIO()
        self._depth = 0
        self._stack = contextlib.ExitStack()

    # -- forward passes ----------------------------------------------------------------------
    def _before(self, module, args) -> None:
        if self._depth == 0 and torch.is_grad_enabled():
            rows = next((a for a in args if isinstance(a, torch.Tensor)), None)
            self.forwards.append((type(module).__name__, None if rows is None else rows.detach().clone()))
        self._depth += 1

    def _after(self, module, args, output) -> None:
        self._depth = max(0, self._depth - 1)

    # -- checkpoints -------------------------------------------------------------------------
    def _saving(self, original):
        def handler(args, kwargs):
            destination = kwargs.get("f", args[1] if len(args) > 1 else None)
            name = getattr(destination, "name", destination)
            self.saves.append(os.path.basename(str(name)))
            return original(*args, **kwargs)

        return handler

    def __enter__(self) -> ScriptObserver:
        stack = self._stack
        stack.enter_context(torch_module.register_module_forward_pre_hook(self._before))
        stack.enter_context(torch_module.register_module_forward_hook(self._after))
        save = torch.serialization.save
        code = save.__code__
        save.__code__ = swap_code(save, self._saving(clone(save)))
        stack.callback(setattr, save, "__code__", code)
        stack.enter_context(contextlib.redirect_stdout(self.printed))
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()
