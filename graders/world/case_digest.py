"""A digest of a grader case that is the same in every process: its fields and its tensors' bytes
(a pickle of a tensor differs from process to process; a repr written for students may leave a
field out). The world pool keys the outcomes it keeps with it, the diagnostic battery its cases."""

from __future__ import annotations

import dataclasses
import hashlib


def case_key(task, case) -> str:
    """The key of ``task`` run on ``case``, the same in every process (the diagnostic battery's,
    and the harness's record of what grading saw fail)."""
    from graders.world.task import spec_of  # torch: in a grading run only

    return f"{spec_of(task).ref}:{case_digest(case)}"


def case_digest(case) -> str:
    digest = hashlib.sha256()
    _feed(case, digest)
    return digest.hexdigest()[:16]


def _feed(value, digest) -> None:
    import torch

    if isinstance(value, torch.Tensor):
        data = value.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        digest.update(f"T{value.dtype}{tuple(value.shape)}:".encode() + data)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        digest.update(f"D{type(value).__qualname__}(".encode())
        for field in dataclasses.fields(value):
            digest.update(field.name.encode() + b"=")
            _feed(getattr(value, field.name), digest)
        digest.update(b")")
    elif isinstance(value, list | tuple):
        digest.update(f"L{len(value)}[".encode())
        for item in value:
            _feed(item, digest)
        digest.update(b"]")
    elif isinstance(value, dict):
        digest.update(f"M{len(value)}{{".encode())
        for key in sorted(value, key=repr):
            _feed(key, digest)
            _feed(value[key], digest)
        digest.update(b"}")
    else:
        digest.update(f"V{type(value).__qualname__}:{value!r};".encode())
