"""Worker side: a device apart from the host, on a machine that has only a CPU.

Offloading is about *where* memory lives: the model on the device, the fp32 masters and the
optimizer state on the host. On a CPU-only machine both are the same memory, so an optimizer
that ignores ``host`` and keeps its masters next to the parameters would look right.
:class:`SimulatedDevice` keeps the two apart by provenance, while graded code runs:

* the storages the kit puts on the device (the model's parameters, its inputs) are the
  device's, and so is whatever an operator makes from a device tensor (``p.float()``,
  ``zeros_like(p)``, autograd's gradients);
* ``Tensor.to(host)`` and ``Tensor.cpu()`` of a device tensor put a copy on the host, as on a
  GPU machine (on a CPU they would hand back the same tensor); so do ``empty_like(p,
  device=host)`` and its kin;
* a factory (``torch.zeros(n)``: torch's default device is the host) and an operator whose
  tensor inputs are all on the host (``zeros_like(master)``) make host tensors.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from graders.training.live_memory import class_attribute, tensors_in

DEVICE, HOST = "device", "host"
#: factories shaped like a tensor that put their result where ``device=`` says
_LIKE = ("empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "new_")


class SimulatedDevice(TorchDispatchMode):
    """Which tensors are on the device and which on the host, while it is active."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __init__(self, on_device: Iterable[torch.Tensor]) -> None:
        super().__init__()
        self._where: dict[int, str] = {}
        self._refs: dict[int, weakref.ref] = {}
        self._to_host = 0  # inside a Tensor.to / Tensor.cpu that names a device
        for tensor in on_device:
            self._place(tensor, DEVICE)

    def where(self, tensor: torch.Tensor) -> str:
        """``"device"`` or ``"host"`` (what the kit made before the mode is the host's)."""
        return self._where.get(id(tensor.untyped_storage()), HOST)

    def _place(self, tensor: torch.Tensor, where: str) -> None:
        storage = tensor.untyped_storage()
        key = id(storage)
        if key not in self._refs:
            self._refs[key] = weakref.ref(storage, lambda _, key=key: self._forget(key))
        self._where[key] = where

    def _forget(self, key: int) -> None:
        self._where.pop(key, None)
        self._refs.pop(key, None)

    # -- the mode ----------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        inputs = tensors_in((args, kwargs), [])
        name = func.__name__.split(".")[0]
        told = self._to_host or ("device" in kwargs and name.startswith(_LIKE))
        on_host = all(self.where(t) == HOST for t in inputs)
        target = HOST if told or on_host else DEVICE
        known = {id(t.untyped_storage()) for t in inputs}
        for tensor in tensors_in(out, []):
            if id(tensor.untyped_storage()) not in known:
                self._place(tensor, target)
        return out

    # -- host transfers that a CPU would skip --------------------------------------------------
    def __enter__(self):
        device = self
        to, cpu = torch.Tensor.to, torch.Tensor.cpu

        def to_host_copies(tensor, *args, **kwargs):
            if device.where(tensor) != DEVICE or not _targets_a_device(args, kwargs):
                return to(tensor, *args, **kwargs)
            device._to_host += 1
            try:
                return to(tensor, *args, **{**kwargs, "copy": True})
            finally:
                device._to_host -= 1

        def cpu_copies(tensor, *args, **kwargs):
            if device.where(tensor) == DEVICE:
                return to_host_copies(tensor, "cpu")
            return cpu(tensor, *args, **kwargs)

        self._patches = contextlib.ExitStack()
        self._patches.enter_context(class_attribute(torch.Tensor, "to", to_host_copies))
        self._patches.enter_context(class_attribute(torch.Tensor, "cpu", cpu_copies))
        return super().__enter__()

    def __exit__(self, *exc):
        self._patches.close()
        return super().__exit__(*exc)


def _targets_a_device(args: tuple, kwargs: dict) -> bool:
    """Whether a ``Tensor.to`` call names a device (every device here is the host's CPU)."""
    if "device" in kwargs:
        return True
    return any(isinstance(a, str | torch.device) for a in args)
