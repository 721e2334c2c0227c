"""Worker side: which autograd nodes hand a tensor its gradient.

A hand-written backward shows in the graph: the node that feeds a parameter's
``AccumulateGrad`` is the custom ``torch.autograd.Function``'s, not autograd's own
``MmBackward0`` or ``AddBackward0``; between the output and the parameter there is nothing
but custom Functions and nodes that only move values (views, copies). And it shows in what
the backward returns: :class:`ReturnedGradients` records what each such Function's backward
returned for the parameter, which is what the parameter's ``.grad`` must end up holding.
Nodes are named by kind: ``custom:<module>.<Function>`` for a custom Function, else the
node's class name.
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


#: autograd's nodes that only move, reshape or copy values: allowed between the output and a
#: parameter whose backward is written by hand
PLUMBING_NODES = frozenset(
    {
        "ViewBackward0",
        "UnsafeViewBackward0",
        "ReshapeAliasBackward0",
        "CloneBackward0",
        "ToCopyBackward0",
        "TBackward0",
        "TransposeBackward0",
        "PermuteBackward0",
        "SqueezeBackward0",
        "SqueezeBackward1",
        "UnsqueezeBackward0",
        "AliasBackward0",
    }
)


def kind(node) -> str:
    forward = getattr(node, "_forward_cls", None)
    if forward is not None:
        return f"custom:{forward.__module__}.{forward.__qualname__}"
    return type(node).__name__


def _ids(tensors: dict[str, torch.Tensor | None]) -> dict[int, str]:
    return {id(t): name for name, t in tensors.items() if isinstance(t, torch.Tensor)}


def _nodes(output: torch.Tensor):
    """Every node of the graph behind ``output``, once each."""
    seen: set[int] = set()
    todo = [output.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        todo.extend(child for child, _ in node.next_functions if child is not None)


def _variable_name(node, wanted: dict[int, str]) -> str | None:
    """The name of the wanted tensor whose ``AccumulateGrad`` ``node`` is, if any."""
    variable = getattr(node, "variable", None)
    return wanted.get(id(variable)) if variable is not None else None


def gradient_sources(output: torch.Tensor, tensors: dict[str, torch.Tensor | None]) -> dict:
    """``{"sources": {name: [kinds of the nodes feeding its AccumulateGrad]}, "kinds": [...]}``
    over the graph behind ``output``."""
    wanted = _ids(tensors)
    sources: dict[str, list[str]] = {name: [] for name in tensors}
    kinds: set[str] = set()
    for node in _nodes(output):
        kinds.add(kind(node))
        for child, _ in node.next_functions:
            name = _variable_name(child, wanted)
            if name is not None:
                sources[name].append(kind(node))
    return {"sources": sources, "kinds": sorted(kinds)}


def path_kinds(output: torch.Tensor, tensors: dict[str, torch.Tensor | None]) -> dict[str, list[str]]:
    """``{name: [kinds of every node on a path from the output to the tensor's AccumulateGrad]}``."""
    wanted = _ids(tensors)
    reach: dict[int, tuple[object, frozenset[str]]] = {}  # the node is held so its id stays its own
    stack, entered = [(output.grad_fn, False)], set()
    while stack:
        node, children_done = stack.pop()
        if node is None:
            continue
        if children_done:
            own = _variable_name(node, wanted)
            names = {own} if own is not None else set()
            for child, _ in node.next_functions:
                if child is not None:
                    names |= reach[id(child)][1]
            reach[id(node)] = (node, frozenset(names))
        elif id(node) not in entered:
            entered.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child, _ in node.next_functions if child is not None)
    kinds: dict[str, set[str]] = {name: set() for name in tensors}
    for node, names in reach.values():
        if getattr(node, "variable", None) is None:
            for name in names:
                kinds[name].add(kind(node))
    return {name: sorted(found) for name, found in kinds.items()}


class ReturnedGradients:
    """While active, what the custom Functions feeding the tensors' ``AccumulateGrad``
    returned for them from their backward (their ``backward`` or ``vjp``, wrapped on the class).

    ``returned[name]`` lists one tensor per call; a parameter's ``.grad`` after backward must
    be their sum, or something replaced the hand-written gradient on its way. A backward that
    saves tensors for a graph of its own (autograd run again inside it) sets
    ``graph_in_backward``.
    """

    def __init__(self, output: torch.Tensor, tensors: dict[str, torch.Tensor | None]) -> None:
        wanted = _ids(tensors)
        self.returned: dict[str, list[torch.Tensor]] = {name: [] for name in wanted.values()}
        self._slots: dict[int, tuple[object, list[tuple[int, str]]]] = {}
        for node in _nodes(output):
            if getattr(node, "_forward_cls", None) is None:
                continue
            feeding = [child for child, _ in node.next_functions if child is not None]
            for k, child in enumerate(feeding):
                name = _variable_name(child, wanted)
                if name is not None:
                    self._slots.setdefault(id(node), (node, []))[1].append((k, name))
        self._patched: list[tuple[type, str, object]] = []
        #: whether a backward built a graph for autograd to differentiate (it saved a tensor)
        self.graph_in_backward = False

    def _graph_in_backward(self, tensor: torch.Tensor) -> torch.Tensor:
        self.graph_in_backward = True
        return tensor

    def _record(self, ctx, result) -> None:
        slot = self._slots.get(id(ctx))
        if slot is None:
            return
        values = result if isinstance(result, tuple) else (result,)
        # the k-th input that needs a gradient is the k-th node feeding this one
        needing = [i for i, needs in enumerate(ctx.needs_input_grad) if needs]
        for k, name in slot[1]:
            value = values[needing[k]] if k < len(needing) and needing[k] < len(values) else None
            if isinstance(value, torch.Tensor):
                self.returned[name].append(value.detach().clone())

    def __enter__(self) -> ReturnedGradients:
        for cls in {node._forward_cls for node, _ in self._slots.values()}:
            attr = "vjp" if cls.vjp is not torch.autograd.Function.vjp else "backward"
            original = getattr(cls, attr)

            def recorded(ctx, *grads, _original=original):
                with torch.autograd.graph.saved_tensors_hooks(self._graph_in_backward, lambda t: t):
                    result = _original(ctx, *grads)
                self._record(ctx, result)
                return result

            self._patched.append((cls, attr, cls.__dict__.get(attr)))
            setattr(cls, attr, staticmethod(recorded))
        return self

    def __exit__(self, *exc) -> None:
        for cls, attr, before in reversed(self._patched):
            if before is None:
                delattr(cls, attr)
            else:
                setattr(cls, attr, before)
        self._patched.clear()

    def verdicts(self, tensors: dict[str, torch.Tensor | None]) -> dict[str, str]:
        """``{name: "kept" | "replaced" | "not returned"}`` after backward."""
        verdicts = {}
        for name, returned in self.returned.items():
            grad = tensors[name].grad
            if not returned:
                verdicts[name] = "not returned"
                continue
            total = returned[0] if len(returned) == 1 else torch.stack(returned).sum(0)
            same = grad is not None and grad.shape == total.shape
            verdicts[name] = "kept" if same and torch.allclose(grad, total.to(grad.dtype)) else "replaced"
        return verdicts
