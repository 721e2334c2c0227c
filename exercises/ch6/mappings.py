# Generated from solutions/ch6/mappings.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 6: the conjugate communication operators of Megatron-LM's tensor parallelism.

Each operator is a ``torch.autograd.Function``: a forward and a backward that are each other's
conjugate. Where the forward copies, the backward sums; where the forward splits, the backward
gathers. Every one of them communicates at most once in each direction.

Conventions shared by all functions:

* ``group`` is the tensor-parallel process group, or ``None`` for the default world. Every
  rank of ``group`` calls the function with a tensor of the same shape and dtype.
* ``t = dist.get_world_size(group)`` is the tensor-parallel size and
  ``r = dist.get_rank(group)`` this rank's position in the group. Rank ``r`` owns chunk ``r``
  of a split, and the chunks are concatenated in group-rank order.
* *The TP region* is split along the **last** dimension (hidden features). *The sequence
  region* is split along the **first** dimension (Megatron's ``[sequence, batch, hidden]``
  layout). The split dimension is divisible by ``t`` wherever a function splits.
* Forward returns a new tensor and leaves its input as it was; backward returns the gradient
  of the input. The built-in collectives of ``torch.distributed`` are allowed (``all_reduce``,
  ``all_gather``/``all_gather_into_tensor``, ``reduce_scatter``/``reduce_scatter_tensor``);
  ``torch.distributed.nn`` (autograd-aware collectives) and DTensor are not.
* With ``t == 1`` every function is the identity, both ways.
"""

import torch
import torch.distributed as dist


def copy_to_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """f: forward is the identity, backward all-reduces the gradient over ``group``.

    Enter the TP region with it: every rank holds the whole ``x``, and each rank's part of the
    model sends back only its share of the gradient, which the backward sums.
    """
    raise NotImplementedError("[dtlab TODO] ch6/mappings.py: implement copy_to_tp_region")


def reduce_from_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """g: forward all-reduces ``x`` (a partial sum on every rank), backward is the identity."""
    raise NotImplementedError("[dtlab TODO] ch6/mappings.py: implement reduce_from_tp_region")


def scatter_to_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward keeps this rank's chunk of the last dimension (no communication), backward
    all-gathers the gradient's chunks along the last dimension."""
    raise NotImplementedError("[dtlab TODO] ch6/mappings.py: implement scatter_to_tp_region")


def gather_from_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward all-gathers the chunks along the last dimension, backward keeps this rank's
    chunk of the gradient (no communication)."""
    raise NotImplementedError("[dtlab TODO] ch6/mappings.py: implement gather_from_tp_region")


def scatter_to_sequence_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward keeps this rank's chunk of the first (sequence) dimension, backward
    all-gathers the gradient along it."""
    raise NotImplementedError("[dtlab TODO] ch6/mappings.py: implement scatter_to_sequence_region")


def gather_from_sequence_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward all-gathers the sequence chunks along the first dimension. Backward
    reduce-scatters the gradient: every rank used the whole sequence, so the gradient of
    this rank's chunk is the sum over the group of that chunk's gradient."""
    raise NotImplementedError("[dtlab TODO] ch6/mappings.py: implement gather_from_sequence_region")


def reduce_scatter_to_sequence_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward reduce-scatters ``x`` (a partial sum on every rank) along the first dimension:
    this rank keeps chunk ``r`` of the sum. Backward all-gathers the gradient along it."""
    raise NotImplementedError("[dtlab TODO] ch6/mappings.py: implement reduce_scatter_to_sequence_region")
