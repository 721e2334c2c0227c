"""Worker side: a device apart from the host, on a machine that has only a CPU.

Offloading is about *where* memory lives: the model on the device, the fp32 masters and the
optimizer state on the host. On a CPU-only machine both are the same memory, so an optimizer
that ignores ``host`` and keeps its masters next to the parameters would look right.
:class:`SimulatedDevice` keeps the two apart while graded code runs, as a GPU would:

* the model's tensors (and its inputs) are on the **device**, which reports itself as
  ``torch.device("meta")``: ``p.device`` says so, and ``p.to(p.device)``,
  ``torch.empty(n, device=p.device)`` or ``zeros_like(p)`` make device tensors (their data is
  real: the simulated device computes on the CPU);
* the **host** is the CPU: ``p.to("cpu")``, ``p.cpu()``, ``p.to(host)``, ``empty_like(p,
  device=host)`` put a copy on the host (on a CPU they would hand back the same tensor), and
  so does a factory with no device (torch's default device is the host);
* whatever else an operator makes is where its tensor inputs are: a device input makes a
  device tensor (``p.float()``, autograd's gradients), host inputs a host one.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from graders.training.live_memory import class_attribute, tensors_in

DEVICE, HOST = "device", "host"
#: what the simulated device calls itself
DEVICE_NAME = torch.device("meta")
_REAL = torch.device("cpu")


class SimulatedDevice(TorchDispatchMode):
    """Which tensors are on the device and which on the host, while it is active."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __init__(self, on_device: Iterable[torch.Tensor]) -> None:
        super().__init__()
        self._where: dict[int, str] = {}
        self._refs: dict[int, weakref.ref] = {}
        self._placing: str | None = None  # inside a Tensor.to that names where its copy goes
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
        kwargs = dict(kwargs or {})
        named = kwargs.get("device")
        if named is not None:
            kwargs["device"] = _REAL  # the simulated device computes on the CPU
        out = func(*args, **kwargs)
        inputs = tensors_in((args, kwargs), [])
        if self._placing is not None:
            target = self._placing
        elif named is not None:
            target = DEVICE if torch.device(named) == DEVICE_NAME else HOST
        elif inputs:
            target = HOST if all(self.where(t) == HOST for t in inputs) else DEVICE
        else:
            target = HOST
        known = {id(t.untyped_storage()) for t in inputs}
        for tensor in tensors_in(out, []):
            if id(tensor.untyped_storage()) not in known:
                self._place(tensor, target)
        return out

    # -- what a CPU would not do: report the device, copy on a move -----------------------------
    def __enter__(self):
        simulated = self
        device, to, cpu = torch._C.TensorBase.device, torch.Tensor.to, torch.Tensor.cpu

        def where_it_is(tensor):
            return DEVICE_NAME if simulated.where(tensor) == DEVICE else device.__get__(tensor)

        def moved(tensor, *args, **kwargs):
            target = _named_device(args, kwargs)
            if target is None:
                return to(tensor, *args, **kwargs)
            going = DEVICE if target == DEVICE_NAME else HOST
            args = tuple(_REAL if _is_device(a) else a for a in args)
            kwargs = {k: (_REAL if k == "device" else v) for k, v in kwargs.items()}
            if simulated.where(tensor) != going:
                kwargs["copy"] = True  # a move between the device and the host copies
            simulated._placing = going
            try:
                return to(tensor, *args, **kwargs)
            finally:
                simulated._placing = None

        def to_host(tensor, *args, **kwargs):
            return moved(tensor, _REAL) if simulated.where(tensor) == DEVICE else cpu(tensor, *args, **kwargs)

        self._patches = contextlib.ExitStack()
        self._patches.enter_context(class_attribute(torch.Tensor, "device", property(where_it_is)))
        self._patches.enter_context(class_attribute(torch.Tensor, "to", moved))
        self._patches.enter_context(class_attribute(torch.Tensor, "cpu", to_host))
        return super().__enter__()

    def __exit__(self, *exc):
        self._patches.close()
        return super().__exit__(*exc)


def _is_device(value) -> bool:
    if isinstance(value, torch.device):
        return True
    if isinstance(value, str):
        try:
            torch.device(value)
        except RuntimeError:
            return False
        return True
    return False


def _named_device(args: tuple, kwargs: dict) -> torch.device | None:
    """The device a ``Tensor.to`` call names, if it names one."""
    if kwargs.get("device") is not None:
        return torch.device(kwargs["device"])
    for value in args:
        if _is_device(value):
            return torch.device(value)
    return None
