"""Worker side: what a rank of the first DDP script did, seen from outside the script.

:class:`ScriptObserver`, entered around the script, notes

* every training forward pass (under ``torch.enable_grad``; an evaluation under ``no_grad`` is not
  training): the rows the outermost module was handed, and whether that module is torch's
  ``DistributedDataParallel`` (a global forward hook on every ``nn.Module``);
* what the outermost module returned for it (the driver computes the step's loss from it);
* the gradient bytes each such DDP module all-reduced during each step: at its first forward the
  observer gives it a communication hook (DDP's own averaging all-reduce, with its bytes noted),
  so a step that synchronises nothing through DDP shows as zero;
* the DDP modules themselves, whose replicas are read after the script;
* every ``torch.save`` to a path (the function's code is swapped, so every route to it is seen),
  with the sha256 of the file it left;
* what the script wrote to its standard output, by ``print`` or to file descriptor 1 (torch's
  warnings go to standard error and are not the script's logging).

The hooks are closures, not methods: nothing of the observer hangs off torch's hook tables.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
import tempfile

import torch
import torch.serialization
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.modules import module as torch_module
from torch.nn.parallel import DistributedDataParallel

from graders.comm.guard import clone, swap_code


def _sha256(path: str) -> str:
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


class ScriptObserver:
    def __init__(self) -> None:
        self.forwards: list[tuple[bool, str, torch.Tensor | None]] = []
        self.outputs: list[torch.Tensor | None] = []  # per training forward: what the model returned
        self.synced: list[int] = []  # per training forward: gradient bytes DDP all-reduced in its step
        self.replicas: list[DistributedDataParallel] = []
        self.saves: list[tuple[str, str]] = []  # (file name, sha256 of what it wrote)
        self.printed = io.StringIO()
        self.stdout_bytes = b""
        self._stack = contextlib.ExitStack()
        self._handles: list = []

    def _hooks(self):
        depth = [0]
        seen: set[int] = set()

        def before(module, args) -> None:
            if depth[0] == 0 and torch.is_grad_enabled():
                ddp = isinstance(module, DistributedDataParallel)
                rows = next((a for a in args if isinstance(a, torch.Tensor)), None)
                self.forwards.append(
                    (ddp, type(module).__name__, None if rows is None else rows.detach().clone())
                )
                self.outputs.append(None)
                self.synced.append(0)
                if ddp and id(module) not in seen:
                    seen.add(id(module))
                    self.replicas.append(module)
                    module.register_comm_hook(None, averaged(module))
            depth[0] += 1

        def after(module, args, output) -> None:
            depth[0] = max(0, depth[0] - 1)
            if (
                depth[0] == 0
                and torch.is_grad_enabled()
                and self.outputs
                and isinstance(output, torch.Tensor)
            ):
                self.outputs[-1] = output.detach().clone()

        def averaged(ddp):
            def hook(state, bucket):
                buffer = bucket.buffer()
                if self.synced:
                    self.synced[-1] += buffer.numel() * buffer.element_size()
                return allreduce_hook(ddp.process_group, bucket)

            return hook

        return before, after

    def _saving(self, original):
        def handler(args, kwargs):
            destination = kwargs.get("f", args[1] if len(args) > 1 else None)
            result = original(*args, **kwargs)
            if isinstance(destination, str | os.PathLike) and os.path.isfile(destination):
                self.saves.append((os.path.basename(os.fspath(destination)), _sha256(destination)))
            return result

        return handler

    def __enter__(self) -> ScriptObserver:
        stack = self._stack
        before, after = self._hooks()
        self._handles = [
            stack.enter_context(torch_module.register_module_forward_pre_hook(before)),
            stack.enter_context(torch_module.register_module_forward_hook(after)),
        ]
        save = torch.serialization.save
        code = save.__code__
        save.__code__ = swap_code(save, self._saving(clone(save)))
        stack.callback(setattr, save, "__code__", code)
        stack.enter_context(contextlib.redirect_stdout(self.printed))
        stack.enter_context(self._file_descriptor_one())
        return self

    @contextlib.contextmanager
    def _file_descriptor_one(self):
        """What is written to file descriptor 1 meanwhile (``os.write(1, ...)``, ``sys.__stdout__``)."""
        saved = os.dup(1)
        with tempfile.TemporaryFile() as capture:
            os.dup2(capture.fileno(), 1)
            try:
                yield
            finally:
                sys.__stdout__.flush()
                os.dup2(saved, 1)
                os.close(saved)
                capture.seek(0)
                self.stdout_bytes = capture.read(4000)

    def hooks_intact(self) -> bool:
        """Whether the forward hooks are still registered (the script may not clear them)."""
        tables = (torch_module._global_forward_pre_hooks, torch_module._global_forward_hooks)
        return all(handle.id in table for handle, table in zip(self._handles, tables, strict=True))

    def __exit__(self, *exc) -> None:
        self._stack.close()
