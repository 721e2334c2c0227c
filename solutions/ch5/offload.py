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
        ### BEGIN SOLUTION
        self.host = torch.device(host)
        unique = {}
        for p in params:
            if p.requires_grad and id(p) not in unique:
                unique[id(p)] = p
        self.params = list(unique.values())
        self.masters = [nn.Parameter(p.detach().to(self.host, torch.float32, copy=True)) for p in self.params]
        self.optimizer = optimizer_cls(self.masters, **hparams)
        ### END SOLUTION

    def zero_grad(self, set_to_none: bool = True) -> None:
        ### BEGIN SOLUTION
        for p, master in zip(self.params, self.masters, strict=True):
            p.grad = None
            master.grad = None
        ### END SOLUTION

    def step(self) -> None:
        ### BEGIN SOLUTION
        for p, master in zip(self.params, self.masters, strict=True):
            master.grad = None if p.grad is None else p.grad.detach().to(self.host, torch.float32)
        self.optimizer.step()
        with torch.no_grad():
            for p, master in zip(self.params, self.masters, strict=True):
                p.copy_(master.to(p.device))
        ### END SOLUTION
