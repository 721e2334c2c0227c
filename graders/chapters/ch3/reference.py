"""Chapter 3's references, computed in the driver: Lion written out (torch has no Lion), and the
parameters a trajectory is compared with.

``lion_history(case)`` steps fresh copies of the case's parameters with the update of Chen et al.
(2023), "Symbolic Discovery of Optimization Algorithms", Algorithm 2 (``p ← p·(1 − lr·wd)``,
``p ← p − lr·sign(β1·m + (1−β1)·g)``, ``m ← β2·m + (1−β2)·g``): the parameters after every step.
The other four optimizers are compared with ``torch.optim`` itself, run in the worker on the same
parameters and gradients (:mod:`graders.chapters.ch3.tasks`).
"""

from __future__ import annotations

import math

import torch


def lion_update(p, g, m, lr: float, beta1: float, beta2: float, decay: float) -> None:
    """One Lion step of ``p`` (in place) with gradient ``g`` and moment ``m`` (updated in place)."""
    p.mul_(1 - lr * decay)
    p.add_(torch.sign(beta1 * m + (1 - beta1) * g), alpha=-lr)
    m.mul_(beta2).add_(g, alpha=1 - beta2)


def lion_history(case) -> list[list[torch.Tensor]]:
    params = [p.clone() for p in case.params]
    moments: dict[int, torch.Tensor] = {}
    history = []
    for grads in case.gradients:
        for j, (p, g) in enumerate(zip(params, grads, strict=True)):
            if g is None:
                continue
            hyper = case.hyper_of(j)
            lr, (beta1, beta2), decay = hyper["lr"], hyper["betas"], hyper["weight_decay"]
            lion_update(p, g, moments.setdefault(j, torch.zeros_like(p)), lr, beta1, beta2, decay)
        history.append([p.clone() for p in params])
    return history


#: per-element state tensors each optimizer keeps for a parameter that has had a gradient
STATE_TENSORS = {
    "sgd": 0,
    "sgd_momentum": 1,
    "adam": 2,
    "adam_amsgrad": 3,
    "adamw": 2,
    "adagrad": 1,
    "lion": 1,
}


def state_tensors(case, j: int) -> int:
    """How many tensors of parameter ``j``'s size its optimizer keeps (its group's momentum and
    amsgrad decide for SGD and Adam)."""
    hyper = case.hyper_of(j)
    if case.optimizer == "sgd":
        return STATE_TENSORS["sgd_momentum" if hyper["momentum"] != 0 else "sgd"]
    if case.optimizer in ("adam", "adamw") and hyper["amsgrad"]:
        return STATE_TENSORS["adam_amsgrad"]
    return STATE_TENSORS[case.optimizer]


def expected_state_bytes(case) -> tuple[int, int]:
    """(least, most) bytes of per-element state after the case's steps: each parameter that had
    a gradient keeps :func:`state_tensors` tensors of its size; Adagrad may make its sums at
    construction for every parameter (torch does)."""
    itemsize = torch.empty((), dtype=getattr(torch, case.dtype)).element_size()
    least = most = 0
    for j, shape in enumerate(case.shapes):
        size = state_tensors(case, j) * itemsize * math.prod(shape)
        stepped = any(step[j] for step in case.grads)
        least += size if stepped else 0
        most += size if stepped or case.optimizer == "adagrad" else 0
    return least, most
