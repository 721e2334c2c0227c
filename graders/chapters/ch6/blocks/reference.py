"""Chapter 6's block references, computed in the driver: the single-device block of
:mod:`graders.training.gpt`."""

from __future__ import annotations

from graders.chapters.ch6.blocks.cases import BlockCase
from graders.training import gpt as models


def block(case: BlockCase) -> dict:
    """The single-device block's whole output, input gradient and parameter gradients by name."""
    reference = case.single_device()
    x = case.x.clone().requires_grad_()
    y = reference(x)
    y.backward(case.grad)
    grads = {name: p.grad for name, p in reference.named_parameters()}
    return {
        "output": y.detach(),
        "input_grad": x.grad,
        "grads": grads,
        "names": list(models.state_of(reference)),
    }
