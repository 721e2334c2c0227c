# Generated from solutions/ch6/layers.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 6: Megatron-LM's parallel layers, each built from the full weight of the layer it splits.

* ``ColumnParallelLinear`` splits ``nn.Linear``'s weight ``[out, in]`` by rows: rank ``r``
  holds output features ``r·out/t … (r+1)·out/t`` and its slice of the bias.
* ``RowParallelLinear`` splits the weight by columns: rank ``r`` holds input features
  ``r·in/t … (r+1)·in/t`` and the whole bias, which is added once, after the reduction.
* ``VocabParallelEmbedding`` splits the vocabulary: rank ``r`` holds rows
  ``r·V/t … (r+1)·V/t`` of the embedding table.
* ``vocab_parallel_cross_entropy`` scores vocabulary-parallel logits without ever gathering
  them.

``master_weight`` (and ``master_bias``) have the full tensors' shapes on every rank, but only
this rank's shard is real: the other ranks' rows or columns are NaN (a row-parallel layer's bias,
which every rank holds, is whole). A rank that computes with another rank's shard instead of
receiving its result gets NaN. A layer keeps only this rank's shard, as ``self.weight`` (and
``self.bias``), ``nn.Parameter`` s in the master's dtype. ``t``, ``r`` and ``group`` mean what
they mean in ``mappings.py``, whose operators the layers use. With ``sequence_parallel=True``
the activations outside the layer are split along the first (sequence) dimension, as in
Megatron's ``[s, b, h]`` layout.
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from .mappings import (
    copy_to_tp_region,
    gather_from_sequence_region,
    gather_from_tp_region,
    reduce_from_tp_region,
    scatter_to_tp_region,
)


def _shard(master: torch.Tensor, dim: int, group) -> nn.Parameter:
    """This rank's chunk of ``master`` along ``dim``, as a parameter of its own."""
    chunks = master.detach().chunk(dist.get_world_size(group), dim=dim)
    return nn.Parameter(chunks[dist.get_rank(group)].clone())


class ColumnParallelLinear(nn.Module):
    """``y = x Wᵀ + b`` with ``W`` split along its output features.

    Forward: enter the TP region (``copy_to_tp_region``, or with ``sequence_parallel``
    ``gather_from_sequence_region``), multiply by the local weight, then, with
    ``gather_output``, gather the output features (``gather_from_tp_region``); without it,
    return this rank's ``out/t`` features. Autograd may differentiate the local matmul.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        gather_output: bool = True,
        group=None,
        *,
        master_weight: torch.Tensor,
        master_bias: torch.Tensor | None = None,
        sequence_parallel: bool = False,
    ):
        super().__init__()
        self.group, self.gather_output, self.sequence_parallel = group, gather_output, sequence_parallel
        raise NotImplementedError("[dtlab TODO] ch6/layers.py: implement ColumnParallelLinear.__init__")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("[dtlab TODO] ch6/layers.py: implement ColumnParallelLinear.forward")


class RowParallelLinear(nn.Module):
    """``y = x Wᵀ + b`` with ``W`` split along its input features, and a hand-written backward.

    Forward: unless ``input_is_parallel``, keep this rank's ``in/t`` input features
    (``scatter_to_tp_region``); multiply by the local weight; all-reduce the partial sums
    (with ``sequence_parallel``: reduce-scatter them along the first dimension); add the bias.

    The multiplication, the reduction and the bias are one ``torch.autograd.Function`` whose
    ``backward`` computes ``grad_input``, ``grad_weight`` and ``grad_bias`` by hand: autograd
    may not differentiate the matmul (``torch.autograd.grad``, ``Tensor.backward`` and
    ``torch.func.vjp`` are banned here, and ``.grad`` must be what this backward returns).
    With ``sequence_parallel`` the bias gradient is this rank's part of the sum: the sum over
    the group of ``bias.grad`` is the full gradient. ``sequence_parallel`` needs
    ``input_is_parallel``.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        input_is_parallel: bool = False,
        group=None,
        *,
        master_weight: torch.Tensor,
        master_bias: torch.Tensor | None = None,
        sequence_parallel: bool = False,
    ):
        super().__init__()
        if sequence_parallel and not input_is_parallel:
            raise ValueError("sequence_parallel needs input_is_parallel=True")
        self.group, self.input_is_parallel = group, input_is_parallel
        self.sequence_parallel = sequence_parallel
        raise NotImplementedError("[dtlab TODO] ch6/layers.py: implement RowParallelLinear.__init__")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("[dtlab TODO] ch6/layers.py: implement RowParallelLinear.forward")


class VocabParallelEmbedding(nn.Module):
    """``F.embedding`` with the vocabulary split over the group.

    Each rank looks up the ids in its own rows (an id outside them gives a zero row) and the
    partial embeddings are summed with ``reduce_from_tp_region``: one all-reduce forward,
    none backward. ``num_embeddings`` is divisible by ``t``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, group=None, *, master_weight: torch.Tensor):
        super().__init__()
        self.group = group
        raise NotImplementedError("[dtlab TODO] ch6/layers.py: implement VocabParallelEmbedding.__init__")

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("[dtlab TODO] ch6/layers.py: implement VocabParallelEmbedding.forward")


def vocab_parallel_cross_entropy(logits: torch.Tensor, target: torch.Tensor, group=None) -> torch.Tensor:
    """The cross-entropy of every token, from this rank's slice of the vocabulary's logits.

    ``logits`` is ``[..., V/t]``: rank ``r`` holds the logits of vocabulary ids
    ``r·V/t … (r+1)·V/t``. ``target`` is ``[...]`` (int64 ids in ``[0, V)``). Returns the loss
    of every token, shaped like ``target``, equal on every rank to
    ``F.cross_entropy(full_logits, target, reduction="none")``; its gradient with respect to
    ``logits`` is this rank's slice of the full gradient.

    The full logits are never gathered: exchange a few numbers per token (the maximum, the sum
    of exponentials, the target's logit) with all-reduces. No tensor may be larger than the
    local logits at 8 bytes per element, and ``logits`` is not modified.
    """
    raise NotImplementedError("[dtlab TODO] ch6/layers.py: implement vocab_parallel_cross_entropy")
