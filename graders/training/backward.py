"""The kit's backward through what graded code returned, or why it cannot run.

A task back-propagates a gradient of its own from the student's output; an output of the wrong
kind, shape or dtype, or one without a graph, is not an exception in the worker but a reason
the chapter's checks report in the student's words.
"""

from __future__ import annotations

import torch


def backpropagate(output, grad: torch.Tensor) -> str:
    """Back-propagate a copy of ``grad`` from ``output``: ``""`` when done, else why not
    (``"no tensor"``, ``"shape (2, 3) torch.float32"``, ``"no grad_fn"``)."""
    if not isinstance(output, torch.Tensor):
        return "no tensor"
    if tuple(output.shape) != tuple(grad.shape) or output.dtype != grad.dtype:
        return f"shape {tuple(output.shape)} {output.dtype}"
    if not output.requires_grad:
        return "no grad_fn"
    output.backward(grad.clone())
    return ""
