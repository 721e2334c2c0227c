"""Helpers for values crossing the worker/driver boundary."""

from __future__ import annotations

import torch


def plain(value: object, depth: int = 0) -> object:
    """What a worker may send back for a student's return value.

    Tensors (detached, on the CPU), numbers, strings, None, and lists/tuples/dicts of those pass
    through; anything else becomes a short description such as ``"<object of type Foo>"``, so
    a wrong return type is reported by the driver instead of breaking the transport.
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, torch.Tensor):
        return value.detach().cpu() if value.layout == torch.strided else f"<{value.layout} tensor>"
    if depth < 4 and isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value]
    if depth < 4 and isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: plain(v, depth + 1) for k, v in value.items()}
    return f"<object of type {type(value).__name__}>"
