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

### BEGIN SOLUTION


def _all_reduce(x, group):
    x = x.clone()
    if dist.get_world_size(group) > 1:
        dist.all_reduce(x, group=group)
    return x


def _split(x, dim, group):
    """This rank's chunk of ``x`` along ``dim``, as a new contiguous tensor."""
    t, r = dist.get_world_size(group), dist.get_rank(group)
    return x.chunk(t, dim=dim)[r].contiguous()


def _gather(x, dim, group):
    """The chunks of every rank concatenated along ``dim`` in group-rank order."""
    t = dist.get_world_size(group)
    if t == 1:
        return x.clone()
    chunks = [torch.empty_like(x) for _ in range(t)]
    dist.all_gather(chunks, x.contiguous(), group=group)
    return torch.cat(chunks, dim=dim)


def _reduce_scatter_first(x, group):
    """The sum over the group of ``x``, of which this rank keeps chunk ``r`` along dim 0."""
    t = dist.get_world_size(group)
    if t == 1:
        return x.clone()
    out = torch.empty((x.shape[0] // t, *x.shape[1:]), dtype=x.dtype)
    dist.reduce_scatter_tensor(out, x.contiguous(), group=group)
    return out


class _CopyToRegion(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return _all_reduce(grad, ctx.group), None


class _ReduceFromRegion(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        return _all_reduce(x, group)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class _ScatterToRegion(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _split(x, -1, group)

    @staticmethod
    def backward(ctx, grad):
        return _gather(grad, -1, ctx.group), None


class _GatherFromRegion(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _gather(x, -1, group)

    @staticmethod
    def backward(ctx, grad):
        return _split(grad, -1, ctx.group), None


class _ScatterToSequence(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _split(x, 0, group)

    @staticmethod
    def backward(ctx, grad):
        return _gather(grad, 0, ctx.group), None


class _GatherFromSequence(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _gather(x, 0, group)

    @staticmethod
    def backward(ctx, grad):
        return _reduce_scatter_first(grad, ctx.group), None


class _ReduceScatterToSequence(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _reduce_scatter_first(x, group)

    @staticmethod
    def backward(ctx, grad):
        return _gather(grad, 0, ctx.group), None


### END SOLUTION


def copy_to_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """f: forward is the identity, backward all-reduces the gradient over ``group``.

    Enter the TP region with it: every rank holds the whole ``x``, and each rank's part of the
    model sends back only its share of the gradient, which the backward sums.
    """
    ### BEGIN SOLUTION
    return _CopyToRegion.apply(x, group)
    ### END SOLUTION


def reduce_from_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """g: forward all-reduces ``x`` (a partial sum on every rank), backward is the identity."""
    ### BEGIN SOLUTION
    return _ReduceFromRegion.apply(x, group)
    ### END SOLUTION


def scatter_to_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward keeps this rank's chunk of the last dimension (no communication), backward
    all-gathers the gradient's chunks along the last dimension."""
    ### BEGIN SOLUTION
    return _ScatterToRegion.apply(x, group)
    ### END SOLUTION


def gather_from_tp_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward all-gathers the chunks along the last dimension, backward keeps this rank's
    chunk of the gradient (no communication)."""
    ### BEGIN SOLUTION
    return _GatherFromRegion.apply(x, group)
    ### END SOLUTION


def scatter_to_sequence_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward keeps this rank's chunk of the first (sequence) dimension, backward
    all-gathers the gradient along it."""
    ### BEGIN SOLUTION
    return _ScatterToSequence.apply(x, group)
    ### END SOLUTION


def gather_from_sequence_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward all-gathers the sequence chunks along the first dimension. Backward
    reduce-scatters the gradient: every rank used the whole sequence, so the gradient of
    this rank's chunk is the sum over the group of that chunk's gradient."""
    ### BEGIN SOLUTION
    return _GatherFromSequence.apply(x, group)
    ### END SOLUTION


def reduce_scatter_to_sequence_region(x: torch.Tensor, group=None) -> torch.Tensor:
    """Forward reduce-scatters ``x`` (a partial sum on every rank) along the first dimension:
    this rank keeps chunk ``r`` of the sum. Backward all-gathers the gradient along it."""
    ### BEGIN SOLUTION
    return _ReduceScatterToSequence.apply(x, group)
    ### END SOLUTION
