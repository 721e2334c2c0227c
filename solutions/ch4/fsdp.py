"""Chapter 4: sharded data parallelism (the idea of FSDP and ZeRO-3).

DDP keeps a full replica of the parameters on every rank. Here each rank keeps only a
**shard**: the trainable parameters are flattened into one flat parameter, padded, and cut
into N equal pieces; rank r keeps piece r, and its optimizer steps only that piece. The full
parameters exist only while they are needed:

* **forward**: all-gather the shards into the full flat parameter, run the module on views
  of it, then free it;
* **backward**: the saved activations need the parameters again, so gather them again;
* **gradients**: reduce-scatter the full flat gradient, so that rank r receives only the
  average gradient of its own shard (and never holds the averaged full gradient).

**Flat layout** (graded exactly): the trainable parameters (``requires_grad``; a tied
weight once) in the order of ``module.named_parameters()``, each flattened, concatenated,
then zero-padded at the end to ``N * S`` elements with ``S = ceil(total / N)``. Group rank
r holds elements ``[r * S, (r + 1) * S)`` as ``self.flat_param``, an ``nn.Parameter`` of shape
``(S,)`` and the parameters' dtype. Frozen parameters (``requires_grad=False``) are not
sharded: they stay in the module, on every rank.

Allowed: every ``torch.distributed`` call, but the graders check the pattern: all-gathers
in forward and in backward, a reduce-scatter of the gradients, no all-reduce.
``torch.distributed.fsdp`` and DDP are banned.
"""

import torch
import torch.distributed as dist
from torch import nn


class ShardedDataParallel(nn.Module):
    """``ShardedDataParallel(module, group=None)``: every rank of ``group`` passes an identical
    ``module`` (same parameter values) and keeps only its shard of the trainable parameters.

    Training loop, on every rank of ``group``::

        sdp = ShardedDataParallel(model, group=group)
        optimizer = torch.optim.AdamW([p for p in sdp.parameters() if p.requires_grad])
        optimizer.zero_grad(set_to_none=True)
        loss_fn(sdp(inputs)).backward()     # flat_param.grad = this rank's shard of the
        optimizer.step()                    # averaged gradient

    Contract, checked by the graders:

    * After construction, the wrapper (``self``, the wrapped module and everything they keep)
      holds, in floating-point tensors, only ``flat_param`` (``S`` elements) and the frozen
      parameters: the module's trainable parameters are released. The only trainable
      parameter in ``self.parameters()`` is ``flat_param``.
    * The same holds between steps and right after ``forward`` returns: the gathered full
      parameters are freed after forward, and gathered again during backward.
    * ``forward(*args, **kwargs)`` returns what ``module(*args, **kwargs)`` returns with the
      current full parameters; tied weights stay tied.
    * After backward, ``flat_param.grad`` is shard r of the flat gradient averaged over the
      ranks of ``group`` (zeros in the padding). A trainable parameter that got no gradient
      gets zeros in the flat gradient, as in torch's FSDP: the optimizer, stepping the whole
      shard, still applies weight decay to it.
    """

    def __init__(self, module: nn.Module, group=None) -> None:
        super().__init__()
        self.module = module
        self.group = group
        ### BEGIN SOLUTION
        rank, world = dist.get_rank(group), dist.get_world_size(group)
        named = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        places: dict[int, list[tuple[nn.Module, str]]] = {}
        for name, p in module.named_parameters(remove_duplicate=False):
            owner, _, attr = name.rpartition(".")
            places.setdefault(id(p), []).append((module.get_submodule(owner), attr))
        self._places = [places[id(p)] for _, p in named]
        self._shapes = [p.shape for _, p in named]
        self._numels = [p.numel() for _, p in named]
        self._total = sum(self._numels)
        shard = -(-self._total // world)
        self._padded = shard * world
        with torch.no_grad():
            flat = torch.zeros(self._padded, dtype=named[0][1].dtype)
            flat[: self._total] = torch.cat([p.reshape(-1) for _, p in named])
            self.flat_param = nn.Parameter(flat[rank * shard : (rank + 1) * shard].clone())
        _bind(self._places, None)  # release the module's own copies of the trainable parameters
        ### END SOLUTION

    def forward(self, *args, **kwargs):
        ### BEGIN SOLUTION
        gathered = _Gathered(self.flat_param, self.group, self._padded)
        full = _GatherFlat.apply(self.flat_param, gathered)
        pieces = full[: self._total].split(self._numels)
        _bind(self._places, [piece.view(shape) for piece, shape in zip(pieces, self._shapes, strict=True)])
        try:
            with torch.autograd.graph.saved_tensors_hooks(gathered.pack, gathered.unpack):
                return self.module(*args, **kwargs)
        finally:
            _bind(self._places, None)  # drop the views: nothing keeps the full parameter alive now
        ### END SOLUTION


### BEGIN SOLUTION
def _bind(places: list[list[tuple[nn.Module, str]]], tensors: list[torch.Tensor] | None) -> None:
    """Point every place where trainable parameter i lived at ``tensors[i]`` (or at None)."""
    for i, owners in enumerate(places):
        for owner, attr in owners:
            if attr in owner._parameters:
                del owner._parameters[attr]
            setattr(owner, attr, None if tensors is None else tensors[i])


class _Gathered:
    """One forward's full flat parameter: gathered for forward, freed, gathered again in backward.

    While forward runs, autograd wants to save views of the full parameter for backward
    (a linear layer saves its weight). ``pack`` saves where the view sits instead of the
    view itself; ``unpack`` gathers the full parameter again on first use in backward.
    """

    def __init__(self, shard: nn.Parameter, group, padded: int) -> None:
        self.shard, self.group, self.padded = shard, group, padded
        self.storage = None  # data_ptr of the forward's full parameter
        self.full = None  # the full parameter gathered again for backward

    def gather(self) -> torch.Tensor:
        full = torch.empty(self.padded, dtype=self.shard.dtype)
        dist.all_gather_single(full, self.shard.detach(), group=self.group)
        return full

    def pack(self, tensor: torch.Tensor):
        if self.storage is not None and tensor.untyped_storage().data_ptr() == self.storage:
            return (tensor.storage_offset(), tuple(tensor.shape), tensor.stride())
        return tensor

    def unpack(self, packed):
        if isinstance(packed, torch.Tensor):
            return packed
        if self.full is None:
            self.full = self.gather()
        offset, shape, stride = packed
        return self.full.as_strided(shape, stride, offset)


class _GatherFlat(torch.autograd.Function):
    """Forward: all-gather the shards. Backward: reduce-scatter the full gradient, averaged."""

    @staticmethod
    def forward(ctx, shard, gathered):
        full = gathered.gather()
        gathered.storage = full.untyped_storage().data_ptr()
        ctx.gathered = gathered
        return full

    @staticmethod
    def backward(ctx, grad_full):
        gathered = ctx.gathered
        gathered.full = None  # every use of the parameters in backward is done
        grad_shard = torch.empty_like(gathered.shard)
        dist.reduce_scatter_single(grad_shard, grad_full.contiguous(), group=gathered.group)
        grad_shard /= dist.get_world_size(gathered.group)
        return grad_shard, None


### END SOLUTION
