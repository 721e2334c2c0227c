"""Worker side: how many bytes of tensor data an object keeps alive.

Memory lessons (sharded parameters, partitioned optimizer state) are graded on what a rank
actually holds, measured here rather than taken from the student's word. The walk follows
what an object owns: attributes, containers, module parameters and buffers, a tensor's
``.grad``, the cells of closures and the instance of bound methods (hooks often hide tensors
there). It does not follow autograd graphs, module globals or the interpreter's other objects.
Each storage counts once, at its full size: a small view of a big buffer keeps the whole
buffer alive, and a storage resized to zero counts zero.
"""

from __future__ import annotations

import types

import torch

_SKIP = (type, types.ModuleType, types.BuiltinFunctionType, str, bytes, int, float, bool, complex)


def reachable_tensor_bytes(root: object, *, floating_only: bool = True, limit: int = 100_000) -> int:
    """Bytes of every distinct tensor storage reachable from ``root``.

    ``floating_only`` counts only floating-point tensors (parameters, gradients, optimizer
    state), leaving out index and bookkeeping tensors.
    """
    seen: set[int] = set()
    storages: dict[tuple[int, int], int] = {}
    stack = [root]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if obj is None or isinstance(obj, _SKIP) or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Tensor):
            if obj.layout == torch.strided and (obj.is_floating_point() or not floating_only):
                storage = obj.untyped_storage()
                storages[(storage.data_ptr(), id(storage) if storage.data_ptr() == 0 else 0)] = (
                    storage.nbytes()
                )
            if obj.is_leaf and obj.grad is not None:
                stack.append(obj.grad)
            stack.extend(getattr(obj, "__dict__", {}).values())
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        elif isinstance(obj, types.FunctionType):
            stack.extend(cell.cell_contents for cell in obj.__closure__ or () if _filled(cell))
            stack.extend(obj.__defaults__ or ())
        elif isinstance(obj, types.MethodType):
            stack.append(obj.__self__)
            stack.append(obj.__func__)
        else:
            stack.extend(getattr(obj, "__dict__", {}).values())
            slots = getattr(type(obj), "__slots__", ())
            for slot in (slots,) if isinstance(slots, str) else slots:
                stack.append(getattr(obj, slot, None))
    return sum(storages.values())


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True
