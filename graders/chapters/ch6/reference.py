"""Chapter 6 single-device references, computed in the driver from the case's whole tensors."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from graders.chapters.ch6.cases import MAPPINGS, LinearCase, MappingCase


def mapping(case: MappingCase) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Per group rank: (forward output, gradient of its input)."""
    dim, forward, backward = MAPPINGS[case.mapping]
    n, xs, gs = case.n, case.inputs, case.grads

    def direction(kind, tensors, i, split_back):
        if kind == "all_reduce":
            return torch.stack(tensors).sum(0)
        if kind == "all_gather":
            return torch.cat(tensors, dim=dim)
        if kind == "reduce_scatter":
            return torch.stack(tensors).sum(0).chunk(n, dim=dim)[i]
        if split_back:  # the split half of a scatter or a gather
            return tensors[i].chunk(n, dim=dim)[i]
        return tensors[i]

    split_forward = forward is None and dim is not None
    split_backward = backward is None and dim is not None
    return [
        (direction(forward, xs, i, split_forward), direction(backward, gs, i, split_backward))
        for i in range(n)
    ]


def linear(case: LinearCase) -> dict[str, torch.Tensor | None]:
    """The whole output and the gradients of ``nn.Linear`` built from the full weight."""
    weight = case.weight.clone().requires_grad_()
    bias = case.bias_value.clone().requires_grad_() if case.bias else None
    x = case.x.clone().requires_grad_()
    y = F.linear(x, weight, bias)
    y.backward(case.grad)
    return {
        "output": y.detach(),
        "input_grad": x.grad,
        "weight_grad": weight.grad,
        "bias_grad": bias.grad if bias is not None else None,
    }
