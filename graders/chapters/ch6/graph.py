"""Worker side: which autograd nodes hand a tensor its gradient.

A hand-written backward shows in the graph: the node that feeds a parameter's
``AccumulateGrad`` is the custom ``torch.autograd.Function``'s, not autograd's own
``MmBackward0`` or ``AddBackward0``. Nodes are named by kind: ``custom:<module>.<Function>``
for a custom Function, else the node's class name.
"""

from __future__ import annotations

import torch

#: autograd's own nodes for a matrix product: a hand-written backward has none of them
MATMUL_NODES = frozenset(
    {
        "MmBackward0",
        "AddmmBackward0",
        "BmmBackward0",
        "BaddbmmBackward0",
        "MvBackward0",
        "AddmvBackward0",
        "DotBackward0",
        "MatmulBackward0",
        "LinearBackward0",
        "EinsumBackward0",
        "TensordotBackward0",
    }
)


def kind(node) -> str:
    forward = getattr(node, "_forward_cls", None)
    if forward is not None:
        return f"custom:{forward.__module__}.{forward.__qualname__}"
    return type(node).__name__


def gradient_sources(output: torch.Tensor, tensors: dict[str, torch.Tensor | None]) -> dict:
    """``{"sources": {name: [kinds of the nodes feeding its AccumulateGrad]}, "kinds": [...]}``
    over the graph behind ``output``."""
    wanted = {id(t): name for name, t in tensors.items() if isinstance(t, torch.Tensor)}
    sources: dict[str, list[str]] = {name: [] for name in tensors}
    kinds: set[str] = set()
    seen: set[int] = set()
    todo = [output.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        kinds.add(kind(node))
        for child, _ in node.next_functions:
            if child is None:
                continue
            variable = getattr(child, "variable", None)
            if variable is not None and id(variable) in wanted:
                sources[wanted[id(variable)]].append(kind(node))
            todo.append(child)
    return {"sources": sources, "kinds": sorted(kinds)}
