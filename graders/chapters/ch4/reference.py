"""Chapter 4 references, computed in the driver (never by student code)."""

from __future__ import annotations

import functools
import math

import torch

from graders.chapters.ch4.cases import TrainCase
from graders.training import train_single_device


@functools.lru_cache(maxsize=64)
def history(case: TrainCase, *, zero_missing_grads: bool = False) -> list[dict[str, torch.Tensor]]:
    """Single-device training on the global batches: named parameters after every step.

    ``zero_missing_grads``: the sharded flat parameter gives a parameter that got no gradient
    a zero gradient, so weight decay still moves it.
    """
    return train_single_device(
        case.model(), case.batches(), case.optimizer, zero_missing_grads=zero_missing_grads
    )


@functools.lru_cache(maxsize=8)
def _gradients(dtype: str, every_param_used: bool, wide: bool = False) -> tuple[frozenset[str], int]:
    from graders.training.tiny_lm import lm_loss, make_batches

    shape = TrainCase(1, None, dtype, None, every_param_used=every_param_used, wide=wide)
    model = shape.model()
    batch = make_batches(0, 1, 2, shape.config)[0]
    lm_loss(model, batch.tokens, batch.targets).backward()
    named = [(name, p) for name, p in model.named_parameters() if p.grad is not None]
    return frozenset(name for name, _ in named), sum(p.grad.nbytes for _, p in named)


def gradient_bytes(case: TrainCase) -> int:
    """Bytes of the gradients one backward produces (parameters that get one, tied once)."""
    return _gradients(case.dtype, case.every_param_used, case.wide)[1]


def gradient_names(case: TrainCase) -> frozenset[str]:
    """The parameters that get a gradient in backward."""
    return _gradients(case.dtype, case.every_param_used, case.wide)[0]


def trainable_named(case: TrainCase) -> list[tuple[str, tuple[int, ...]]]:
    """(name, shape) of the trainable parameters in ``named_parameters`` order, tied ones once."""
    return [(p.name, p.shape) for p in case.params if p.trainable]


def frozen_names(case: TrainCase) -> list[str]:
    return [p.name for p in case.params if not p.trainable]


# -- DDP buckets -------------------------------------------------------------------------------


def buckets(case: TrainCase) -> list[list[tuple[str, int]]]:
    """Buckets as ``[(name, nbytes), ...]``: reverse parameter order, closed once >= cap bytes."""
    sizes = [(p.name, p.nbytes) for p in case.params if p.trainable]
    formed: list[list[tuple[str, int]]] = [[]]
    for name, nbytes in reversed(sizes):
        if sum(b for _, b in formed[-1]) >= case.bucket_cap_bytes:
            formed.append([])
        formed[-1].append((name, nbytes))
    return formed


def describe_buckets(formed: list[list[tuple[str, int]]]) -> str:
    return " | ".join(
        f"{sum(b for _, b in bucket)} B [{', '.join(name for name, _ in bucket)}]" for bucket in formed
    )


# -- the sharded flat parameter ------------------------------------------------------------------


def shard_numel(case: TrainCase) -> int:
    total = sum(math.prod(shape) for _, shape in trainable_named(case))
    return math.ceil(total / case.n)


def unflatten(shards: list[torch.Tensor], case: TrainCase) -> dict[str, torch.Tensor]:
    """The named parameters encoded by the group's shards in the contract's flat layout."""
    flat = torch.cat([s.reshape(-1) for s in shards])
    named, offset = {}, 0
    for name, shape in trainable_named(case):
        numel = math.prod(shape)
        named[name] = flat[offset : offset + numel].reshape(shape)
        offset += numel
    return named


def persistent_bytes_bound(case: TrainCase) -> tuple[int, int, int]:
    """(bound, shard bytes, frozen bytes): what a rank may hold between steps."""
    itemsize = torch.empty(0, dtype=getattr(torch, case.dtype)).element_size()
    frozen = sum(p.nbytes for p in case.params if not p.trainable)
    shard = shard_numel(case) * itemsize
    return shard + frozen, shard, frozen
