# Generated from solutions/ch8/mixed_precision.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 8: mixed-precision training with fp32 master weights.

The model computes in a 16-bit dtype (``torch.bfloat16``, or ``torch.float16`` with a loss
scaler); the optimizer updates an fp32 *master* copy of every parameter, because a 16-bit
weight cannot hold the small updates of a step (bf16 keeps 8 bits of mantissa: ``1 + 2⁻⁹`` is
``1``). A step:

1. forward and backward in the 16-bit dtype (the batch cast to it); the loss, cast to float32,
   is returned; with a ``loss_scaler`` (chapter 8's ``DynamicLossScaler``) backward runs on the
   scaled loss;
2. each parameter's 16-bit gradient is cast to float32 into its master's ``.grad``, and the
   16-bit gradient is freed (``None``);
3. with a loss scaler: the masters' gradients are unscaled, and a step whose gradients are not
   finite is skipped (the scaler's ``step`` and ``update``);
4. the optimizer steps the masters, their gradients are freed, and every parameter gets its
   master's new value, cast to the 16-bit dtype.

``MixedPrecisionTrainer(model, optimizer_cls, dtype=torch.bfloat16, loss_scaler=None,
**hparams)`` converts ``model`` to ``dtype`` in place, keeps the masters (float32 tensors, not
parameters of the model, in the order of ``model.parameters()``) and builds
``optimizer_cls(masters, **hparams)``. Between steps it keeps the 16-bit parameters, the fp32
masters and the optimizer's state: no gradient, and no other copy.
"""

import torch


class MixedPrecisionTrainer:
    def __init__(self, model, optimizer_cls, dtype=torch.bfloat16, loss_scaler=None, **hparams):
        self.model, self.dtype, self.loss_scaler = model, dtype, loss_scaler
        self.params = list(model.parameters())
        self.masters = self.fp32_masters()
        model.to(dtype)
        self.optimizer = optimizer_cls(self.masters, **hparams)  # it steps the fp32 copies

    def fp32_masters(self) -> list[torch.Tensor]:
        """A float32 copy of every parameter (before the model goes 16-bit), for the optimizer."""
        raise NotImplementedError(
            "[dtlab TODO] ch8/mixed_precision.py: implement MixedPrecisionTrainer.fp32_masters"
        )

    def step(self, x: torch.Tensor, y: torch.Tensor, loss_fn) -> float:
        """One training step on ``(x, y)``; ``loss_fn(output, y)`` is a scalar. Returns the loss."""
        raise NotImplementedError("[dtlab TODO] ch8/mixed_precision.py: implement MixedPrecisionTrainer.step")
