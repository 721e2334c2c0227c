# Generated from solutions/ch5/offload.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 5: ZeRO-Offload's optimizer, with fp32 master weights and the step on the host.

The model lives on the "device" in bfloat16: its forward and backward run there and its
``.grad`` tensors are bfloat16. The optimizer lives on the "host" (``host``, the CPU): an
fp32 **master copy** of every trained parameter, the optimizer state of those masters, and
the optimizer step itself. Each step moves the gradients device -> host and the updated
parameters host -> device; nothing else crosses. On a machine without a GPU the device and
the host are both the CPU, but the graders keep them apart as a GPU would: the model's tensors
are the device's, and so is any copy made from them without naming the host (``p.float()``,
``p.clone()``); ``p.to(host, ...)`` puts its copy on the host.
"""

import torch
from torch import nn


class OffloadOptimizer:
    """``OffloadOptimizer(params, optimizer_cls, host="cpu", **hparams)``.

    * Construction: for each trained parameter (``requires_grad``, each tied tensor once, in
      the order of ``params``) make an fp32 master copy on ``host`` with the same shape
      (a copy: never a view of the model's memory), and build the inner optimizer
      ``optimizer_cls(masters, **hparams)`` over the masters, so its state is fp32 on the host.
    * ``step()``: copy each bfloat16 gradient to the host as fp32 into its master's ``.grad``
      (a parameter whose ``.grad`` is None gets none), step the inner optimizer on the host,
      then copy every master back into its bfloat16 model parameter **in place** (the model
      keeps its own tensors; casting rounds to nearest).
    * ``zero_grad()``: set the model's and the masters' gradients to None.

    The result equals mixed-precision training on one device with exactly these casts:
    master = param.float() once, master.grad = param.grad.float(), step, param.copy_(master).
    """

    def __init__(self, params, optimizer_cls, host="cpu", **hparams) -> None:
        raise NotImplementedError("[dtlab TODO] ch5/offload.py: implement OffloadOptimizer.__init__")

    def zero_grad(self, set_to_none: bool = True) -> None:
        raise NotImplementedError("[dtlab TODO] ch5/offload.py: implement OffloadOptimizer.zero_grad")

    def step(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch5/offload.py: implement OffloadOptimizer.step")
