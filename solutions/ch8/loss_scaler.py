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
        ### BEGIN SOLUTION
        self._scale = float(init_scale)
        self._finite_steps = 0
        self._found_inf = None  # None: not unscaled yet this step
        ### END SOLUTION

    def get_scale(self) -> float:
        ### BEGIN SOLUTION
        return self._scale
        ### END SOLUTION

    def scale(self, loss: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        return loss * self._scale
        ### END SOLUTION

    def unscale_(self, optimizer: torch.optim.Optimizer) -> None:
        ### BEGIN SOLUTION
        if self._found_inf is not None:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update()")
        found_inf = False
        inverse = 1.0 / self._scale
        for param_group in optimizer.param_groups:
            for param in param_group["params"]:
                if param.grad is None:
                    continue
                param.grad.mul_(inverse)
                found_inf = found_inf or not bool(torch.isfinite(param.grad).all())
        self._found_inf = found_inf
        ### END SOLUTION

    def step(self, optimizer: torch.optim.Optimizer) -> bool:
        ### BEGIN SOLUTION
        if self._found_inf is None:
            self.unscale_(optimizer)
        if self._found_inf:
            return False
        optimizer.step()
        return True
        ### END SOLUTION

    def update(self) -> None:
        ### BEGIN SOLUTION
        if self._found_inf:
            self._scale *= self.backoff_factor
            self._finite_steps = 0
        else:
            self._finite_steps += 1
            if self._finite_steps == self.growth_interval:
                self._scale *= self.growth_factor
                self._finite_steps = 0
        self._found_inf = None
        ### END SOLUTION
