# Generated from solutions/ch8/loss_scaler.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 8: dynamic loss scaling, as fp16 training needs it.

fp16 has a narrow range: small gradients underflow to zero. Multiplying the loss by a large
*scale* before backward shifts every gradient up by the same factor; dividing the gradients by
it afterwards (*unscaling*) gives the true ones back. When the scale is too large a gradient
overflows to inf or NaN: that step is skipped and the scale is cut by ``backoff_factor``. After
``growth_interval`` finite steps in a row the scale grows by ``growth_factor``.

``DynamicLossScaler`` follows ``torch.amp.GradScaler``'s contract, method for method:

* ``scale(loss)`` returns ``loss · scale`` (a new tensor);
* ``unscale_(optimizer)`` divides the gradients of every parameter of ``optimizer`` in place by
  the scale and notes whether any of them holds an inf or a NaN; it may be called once per step
  (before gradient clipping, say), and a second call in the same step raises ``RuntimeError``;
* ``step(optimizer)`` unscales if ``unscale_`` was not called this step, then runs
  ``optimizer.step()`` unless a gradient was not finite; it returns whether it stepped;
* ``update()`` ends the step: it backs off (and restarts the count of finite steps) after a
  skipped step, or counts a finite step and grows the scale when the count reaches
  ``growth_interval`` (and restarts it);
* ``get_scale()`` is the current scale, a Python float.

Using ``torch.amp.GradScaler`` (or its kernels, ``torch._amp_*``) is not allowed.
"""

import torch


class DynamicLossScaler:
    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
    ):
        self.growth_factor, self.backoff_factor = growth_factor, backoff_factor
        self.growth_interval = growth_interval
        raise NotImplementedError("[dtlab TODO] ch8/loss_scaler.py: implement DynamicLossScaler.__init__")

    def get_scale(self) -> float:
        raise NotImplementedError("[dtlab TODO] ch8/loss_scaler.py: implement DynamicLossScaler.get_scale")

    def scale(self, loss: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("[dtlab TODO] ch8/loss_scaler.py: implement DynamicLossScaler.scale")

    def unscale_(self, optimizer: torch.optim.Optimizer) -> None:
        raise NotImplementedError("[dtlab TODO] ch8/loss_scaler.py: implement DynamicLossScaler.unscale_")

    def step(self, optimizer: torch.optim.Optimizer) -> bool:
        raise NotImplementedError("[dtlab TODO] ch8/loss_scaler.py: implement DynamicLossScaler.step")

    def update(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch8/loss_scaler.py: implement DynamicLossScaler.update")
