# Generated from solutions/ch3/optimizers.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 3: five optimizers, written as ``torch.optim.Optimizer`` subclasses.

Each class keeps torch's contract, so it can replace ``torch.optim.<Name>`` in any training loop:

* ``__init__(params, **hyperparameters)`` is given: ``params`` is an iterable of tensors or of
  param-group dicts (each group may override any hyperparameter), and the base class stores them
  in ``self.param_groups``; the defaults are torch's.
* ``step()`` (no closure) updates every parameter of every group in place, under
  ``torch.no_grad()``, with **its group's** hyperparameters. A parameter whose ``.grad`` is
  ``None`` is skipped entirely: no update, no weight decay, no state, and its step count does not
  advance.
* Per-parameter state lives in ``self.state[p]`` (a dict), created the first time ``p`` has a
  gradient. Each parameter counts its own steps (a parameter that had no gradient at step 1 is at
  its step 1 when it first gets one): bias corrections and learning-rate decay use that count,
  as a Python number (torch reads its step tensors with ``.item()``): ``1 − βᵗ`` computed in a
  float32 tensor is rounded to 7 digits, and float64 parameters are compared to 10⁻⁹.

The updates are torch's (https://pytorch.org/docs/stable/optim.html), for one parameter ``p`` with
gradient ``g`` at its step ``t`` (counted from 1):

* ``SGD``: ``g ← g + wd·p``; with momentum ``b ← g`` at t = 1, else ``b ← μ·b + g``, and then
  ``g ← g + μ·b`` (nesterov) or ``g ← b``; ``p ← p − lr·g``. State: ``momentum_buffer`` (only
  when μ ≠ 0).
* ``Adam``: ``g ← g + wd·p`` (L2, into the gradient); ``m ← β1·m + (1−β1)·g``,
  ``v ← β2·v + (1−β2)·g²``; with amsgrad ``v_max ← max(v_max, v)`` and v_max replaces v below;
  ``p ← p − lr/(1−β1ᵗ) · m / (√v / √(1−β2ᵗ) + ε)``. State: ``exp_avg``, ``exp_avg_sq``
  (+ ``max_exp_avg_sq``), ``step``.
* ``AdamW``: Adam without the L2 term, and ``p ← p·(1 − lr·wd)`` first (decoupled decay).
* ``Adagrad``: ``g ← g + wd·p``; ``lr_t = lr / (1 + (t−1)·lr_decay)``; ``s ← s + g²`` (s starts at
  ``initial_accumulator_value``); ``p ← p − lr_t · g / (√s + ε)``. State: ``sum``, ``step``.
* ``Lion`` (Chen et al., 2023; not in torch.optim): ``p ← p·(1 − lr·wd)``;
  ``p ← p − lr·sign(β1·m + (1−β1)·g)``; then ``m ← β2·m + (1−β2)·g``. State: ``exp_avg``.

Writing the optimizers is the exercise: ``torch.optim``'s own optimizers, their functional forms
(``torch.optim.adam.adam``, ...) and fused kernels (``torch._fused_adam_``, ...) may not be used.
``torch.optim.Optimizer`` itself (the base class) may.
"""

import torch
from torch.optim import Optimizer


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0.0, weight_decay=0.0, nesterov=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov))

    @torch.no_grad()
    def step(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch3/optimizers.py: implement SGD.step")


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False):
        hyper = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad)
        super().__init__(params, hyper)

    @torch.no_grad()
    def step(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch3/optimizers.py: implement Adam.step")


class AdamW(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False):
        hyper = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad)
        super().__init__(params, hyper)

    @torch.no_grad()
    def step(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch3/optimizers.py: implement AdamW.step")


class Adagrad(Optimizer):
    def __init__(
        self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10
    ):
        hyper = dict(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        super().__init__(params, hyper)

    @torch.no_grad()
    def step(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch3/optimizers.py: implement Adagrad.step")


class Lion(Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch3/optimizers.py: implement Lion.step")
