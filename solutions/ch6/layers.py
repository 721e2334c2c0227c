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
        ### BEGIN SOLUTION
        self.weight = _shard(master_weight, 0, group)
        self.bias = _shard(master_bias, 0, group) if bias else None
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        if self.sequence_parallel:
            x = gather_from_sequence_region(x, self.group)
        else:
            x = copy_to_tp_region(x, self.group)
        y = F.linear(x, self.weight, self.bias)
        return gather_from_tp_region(y, self.group) if self.gather_output else y
        ### END SOLUTION


### BEGIN SOLUTION
class _RowParallelMatmul(torch.autograd.Function):
    """``x_r W_rᵀ`` summed over the group, plus the bias; the backward written out."""

    @staticmethod
    def forward(ctx, x, weight, bias, group, sequence_parallel):
        ctx.save_for_backward(x, weight)
        ctx.group, ctx.sequence_parallel, ctx.has_bias = group, sequence_parallel, bias is not None
        partial = x.matmul(weight.t())
        t = dist.get_world_size(group)
        if sequence_parallel and t > 1:
            out = torch.empty((partial.shape[0] // t, *partial.shape[1:]), dtype=partial.dtype)
            dist.reduce_scatter_tensor(out, partial, group=group)
        else:
            out = partial
            if t > 1:
                dist.all_reduce(out, group=group)
        return out + bias if bias is not None else out

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        grad_bias = grad.reshape(-1, grad.shape[-1]).sum(0) if ctx.has_bias else None
        t = dist.get_world_size(ctx.group)
        if ctx.sequence_parallel and t > 1:  # every rank needs the whole sequence's gradient
            full = torch.empty((grad.shape[0] * t, *grad.shape[1:]), dtype=grad.dtype)
            dist.all_gather_into_tensor(full, grad.contiguous(), group=ctx.group)
            grad = full
        grad_input = grad.matmul(weight)
        grad_weight = grad.reshape(-1, grad.shape[-1]).t().matmul(x.reshape(-1, x.shape[-1]))
        return grad_input, grad_weight, grad_bias, None, None


### END SOLUTION


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
        ### BEGIN SOLUTION
        self.weight = _shard(master_weight, 1, group)
        self.bias = nn.Parameter(master_bias.detach().clone()) if bias else None
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        if not self.input_is_parallel:
            x = scatter_to_tp_region(x, self.group)
        return _RowParallelMatmul.apply(x, self.weight, self.bias, self.group, self.sequence_parallel)
        ### END SOLUTION


class VocabParallelEmbedding(nn.Module):
    """``F.embedding`` with the vocabulary split over the group.

    Each rank looks up the ids in its own rows (an id outside them gives a zero row) and the
    partial embeddings are summed with ``reduce_from_tp_region``: one all-reduce forward,
    none backward. ``num_embeddings`` is divisible by ``t``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, group=None, *, master_weight: torch.Tensor):
        super().__init__()
        self.group = group
        ### BEGIN SOLUTION
        t, r = dist.get_world_size(group), dist.get_rank(group)
        self.start = r * num_embeddings // t
        self.end = self.start + num_embeddings // t
        self.weight = _shard(master_weight, 0, group)
        ### END SOLUTION

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        outside = (ids < self.start) | (ids >= self.end)
        local = (ids - self.start).masked_fill(outside, 0)
        rows = F.embedding(local, self.weight).masked_fill(outside.unsqueeze(-1), 0.0)
        return reduce_from_tp_region(rows, self.group)
        ### END SOLUTION


### BEGIN SOLUTION
class _VocabParallelCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, group):
        t, r = dist.get_world_size(group), dist.get_rank(group)
        local_vocab = logits.shape[-1]
        start = r * local_vocab
        logits_max = logits.max(dim=-1).values
        if t > 1:
            dist.all_reduce(logits_max, op=dist.ReduceOp.MAX, group=group)
        shifted = logits - logits_max.unsqueeze(-1)
        outside = (target < start) | (target >= start + local_vocab)
        local_target = (target - start).masked_fill(outside, 0)
        predicted = shifted.gather(-1, local_target.unsqueeze(-1)).squeeze(-1).masked_fill(outside, 0.0)
        exp = shifted.exp_()  # shifted is ours: reuse its memory
        sum_exp = exp.sum(dim=-1)
        if t > 1:
            both = torch.stack([predicted, sum_exp])  # one all-reduce for both sums
            dist.all_reduce(both, group=group)
            predicted, sum_exp = both[0], both[1]
        softmax = exp.div_(sum_exp.unsqueeze(-1))
        ctx.save_for_backward(softmax, local_target, outside)
        return sum_exp.log() - predicted

    @staticmethod
    def backward(ctx, grad_loss):
        softmax, local_target, outside = ctx.saved_tensors
        grad = softmax.clone()
        hit = (~outside).to(grad.dtype)
        grad.scatter_add_(-1, local_target.unsqueeze(-1), -hit.unsqueeze(-1))
        return grad * grad_loss.unsqueeze(-1), None, None


### END SOLUTION


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
    ### BEGIN SOLUTION
    return _VocabParallelCrossEntropy.apply(logits, target, group)
    ### END SOLUTION
