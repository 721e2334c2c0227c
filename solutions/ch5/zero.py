"""Chapter 5: the ZeRO family. Partition optimizer state (stage 1), gradients (stage 2) and
parameters (stage 3) across the data-parallel ranks of ``group``.

Conventions shared by every class here:

* **Data parallelism.** Every rank of ``group`` holds the same model and runs forward and
  backward on its own, equally sized share of the global batch, with a loss that is the mean
  over that share. Averaging the gradients over the group (sum, then divide by the group
  size) therefore gives the gradient of the global-batch loss, and after each step every rank
  must hold the parameters that single-device training on the global batch would give.
* **What is trained.** ``params`` may list parameters with ``requires_grad=False`` (never
  updated, no optimizer state) and each tied parameter once. A parameter that gets no
  gradient on any rank may either be skipped (as ``torch.optim`` does) or stepped with a zero
  gradient (as a flat buffer does); both are accepted.
* **Shards.** A tensor of ``numel`` elements is flattened, padded with zeros to a multiple of
  the group size N, and cut into N equal chunks; group rank r owns chunk r. You may shard the
  flat concatenation of many parameters or each parameter on its own, or give each rank whole
  parameters (a greedy partition, as torch's ``ZeroRedundancyOptimizer`` does): a rank may own
  up to its balanced share (``sum(ceil(p.numel() / N))`` elements) plus the largest parameter,
  aligned to 16 bytes, and the ranks together own every element once.
* **The inner optimizer.** ``optimizer_cls(shard_tensors, **hparams)`` is built over the
  tensors a rank owns (for example ``torch.optim.AdamW``); its state is this rank's share of
  the optimizer state. The graders measure the state alive on the rank, whichever class holds it.
* ``group`` is a process group or ``None`` (the default world). Use ``dist.get_rank(group)``
  and ``dist.get_world_size(group)``; every rank of the group constructs the object and calls
  its methods in the same order.
* Allowed calls: ``dist.all_gather_single(output, input)`` and
  ``dist.reduce_scatter_single(output, input)`` (the one-tensor collectives; their older
  names ``all_gather_into_tensor`` and ``reduce_scatter_tensor`` work too), ``dist.all_gather``,
  ``dist.reduce_scatter``, each with ``async_op`` if you like, and ``dist.all_reduce``, though
  the communication checks say where an all-reduce is the wrong tool.
  ``ZeroRedundancyOptimizer``, ``DistributedDataParallel`` and FSDP are banned.
"""

import math

import torch
import torch.distributed as dist
from torch import nn


### BEGIN SOLUTION
def _trainable(params) -> list[nn.Parameter]:
    """The parameters that are trained, each tied tensor once, in the given order."""
    unique = {}
    for p in params:
        if p.requires_grad and id(p) not in unique:
            unique[id(p)] = p
    return list(unique.values())


def _flat_grads(params, padded: int) -> torch.Tensor:
    """The gradients of ``params`` flattened into one zero-padded buffer (zeros where None)."""
    first = params[0]
    flat = torch.zeros(padded, dtype=first.dtype, device=first.device)
    offset = 0
    for p in params:
        if p.grad is not None:
            flat[offset : offset + p.numel()].copy_(p.grad.reshape(-1))
        offset += p.numel()
    return flat


def _scatter_back(params, flat: torch.Tensor) -> None:
    """Copy consecutive slices of the flat buffer into ``params``, in place."""
    offset = 0
    with torch.no_grad():
        for p in params:
            p.copy_(flat[offset : offset + p.numel()].view_as(p))
            offset += p.numel()


class _FlatShard:
    """The flat, padded concatenation of ``params``; this rank owns chunk ``rank`` of it."""

    def __init__(self, params, group) -> None:
        self.params = params
        self.group = group
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.numel = sum(p.numel() for p in params)
        self.chunk = math.ceil(self.numel / self.world)
        self.padded = self.chunk * self.world
        with torch.no_grad():
            flat = torch.zeros(self.padded, dtype=params[0].dtype, device=params[0].device)
            offset = 0
            for p in params:
                flat[offset : offset + p.numel()].copy_(p.reshape(-1))
                offset += p.numel()
        # this rank's slice of the parameters: the tensor the inner optimizer steps
        self.owned = nn.Parameter(flat[self.rank * self.chunk : (self.rank + 1) * self.chunk].clone())

    def set_grad(self, reduced_sum: torch.Tensor) -> None:
        self.owned.grad = reduced_sum.div_(self.world)

    def all_gather_params(self) -> None:
        full = torch.empty(self.padded, dtype=self.owned.dtype, device=self.owned.device)
        dist.all_gather_single(full, self.owned.detach(), group=self.group)
        _scatter_back(self.params, full)


### END SOLUTION


class Zero1Optimizer:
    """ZeRO stage 1: each rank keeps the optimizer state of its shard only.

    ``Zero1Optimizer(params, optimizer_cls, group=None, **hparams)``. The training loop is
    ``opt.zero_grad(); loss.backward(); opt.step()``: backward leaves every rank with the full
    gradients of its own loss (ZeRO-1 does not touch backward), and ``step()``

    1. reduces the gradients so that this rank gets the **average** gradient of the elements
       it owns (it needs no more than that: reduce-scatter, not all-reduce),
    2. runs the inner optimizer on its shard only,
    3. all-gathers the updated shards and writes them into every parameter, in place.

    Communication per step: at most a reduce-scatter and an all-gather of the (padded)
    trainable parameters, which is what plain data parallelism's all-reduce costs.
    """

    def __init__(self, params, optimizer_cls, group=None, **hparams) -> None:
        ### BEGIN SOLUTION
        self.group = group
        self.params = _trainable(params)
        self.shard = _FlatShard(self.params, group)
        self.optimizer = optimizer_cls([self.shard.owned], **hparams)
        ### END SOLUTION

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter (set them to None)."""
        ### BEGIN SOLUTION
        for p in self.params:
            p.grad = None
        self.shard.owned.grad = None
        ### END SOLUTION

    def step(self) -> None:
        """Average the gradients into this rank's shard, step it, all-gather the parameters."""
        ### BEGIN SOLUTION
        shard = self.shard
        flat = _flat_grads(self.params, shard.padded)
        reduced = torch.empty(shard.chunk, dtype=flat.dtype, device=flat.device)
        dist.reduce_scatter_single(reduced, flat, group=self.group)
        shard.set_grad(reduced)
        self.optimizer.step()
        shard.all_gather_params()
        ### END SOLUTION


class Zero2Optimizer:
    """ZeRO stage 2: gradients are partitioned too, as soon as backward produces them.

    ``Zero2Optimizer(params, optimizer_cls, group=None, bucket_cap_mb=25.0, **hparams)``.

    **Buckets.** Walk the trained parameters in *reverse* order (roughly the order backward
    produces their gradients) and add each to the current bucket; when the bucket holds at
    least ``bucket_cap_mb * 2**20`` bytes of parameters, close it and start the next one. The
    last bucket may be smaller.

    **During backward** (``register_post_accumulate_grad_hook`` on each trained parameter):
    when the last gradient of a bucket has arrived, flatten the bucket's gradients into one
    padded buffer, **reduce-scatter** it (``async_op=True`` lets backward go on), and set the
    ``.grad`` of the bucket's parameters to ``None``. Keep at most one bucket on the wire: when
    you launch the next one, wait for the previous one and drop its buffer, keeping only the
    reduced chunk this rank owns. (Keeping every bucket's buffer until ``step()`` would hold
    the whole gradient again.) A bucket with a parameter that gets no gradient is never complete
    in backward; reduce it at the start of ``step()``, with zeros for the missing gradients.

    **step()** waits for the last reduce-scatter, divides by the group size, runs the inner
    optimizer on the owned chunks and all-gathers the parameters, bucket by bucket, into the
    model in place. Never all-reduce the gradients: that would put the whole gradient back on
    every rank, which is exactly what stage 2 removes.

    When backward ends a rank holds: its reduced chunks (1/N of the gradient), the buffer of
    the bucket still on the wire, and the gradients of the buckets that wait for ``step()``.
    """

    def __init__(self, params, optimizer_cls, group=None, bucket_cap_mb: float = 25.0, **hparams) -> None:
        ### BEGIN SOLUTION
        self.group = group
        self.params = _trainable(params)
        cap = bucket_cap_mb * 2**20
        self.buckets: list[_FlatShard] = []
        current: list[nn.Parameter] = []
        for p in reversed(self.params):
            current.append(p)
            if sum(q.numel() * q.element_size() for q in current) >= cap:
                self.buckets.append(_FlatShard(current, group))
                current = []
        if current:
            self.buckets.append(_FlatShard(current, group))
        self.bucket_of = {id(p): b for b, bucket in enumerate(self.buckets) for p in bucket.params}
        self.optimizer = optimizer_cls([bucket.owned for bucket in self.buckets], **hparams)
        self._reset()
        for p in self.params:
            p.register_post_accumulate_grad_hook(self._on_gradient)
        ### END SOLUTION

    ### BEGIN SOLUTION
    def _reset(self) -> None:
        self.arrived = [0] * len(self.buckets)
        self.reduced: dict[int, torch.Tensor] = {}  # bucket -> this rank's summed chunk
        self.on_the_wire: tuple | None = None  # (bucket, work, chunk, buffer): one at a time

    def _on_gradient(self, p: nn.Parameter) -> None:
        b = self.bucket_of[id(p)]
        self.arrived[b] += 1
        if self.arrived[b] == len(self.buckets[b].params):
            self._launch(b)

    def _launch(self, b: int) -> None:
        """Reduce-scatter bucket ``b`` and free its gradients; land the bucket sent before it."""
        bucket = self.buckets[b]
        flat = _flat_grads(bucket.params, bucket.padded)
        for p in bucket.params:
            p.grad = None  # this rank keeps only its reduced chunk
        chunk = torch.empty(bucket.chunk, dtype=flat.dtype, device=flat.device)
        work = dist.reduce_scatter_single(chunk, flat, group=self.group, async_op=True)
        self._land()
        self.on_the_wire = (b, work, chunk, flat)

    def _land(self) -> None:
        """Wait for the bucket on the wire, keep its chunk and drop its buffer."""
        if self.on_the_wire is not None:
            b, work, chunk, _ = self.on_the_wire
            work.wait()
            self.reduced[b] = chunk
            self.on_the_wire = None

    ### END SOLUTION

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every gradient: the parameters' and the owned chunks'."""
        ### BEGIN SOLUTION
        for p in self.params:
            p.grad = None
        for bucket in self.buckets:
            bucket.owned.grad = None
        ### END SOLUTION

    def step(self) -> None:
        """Reduce the incomplete buckets, wait, step the owned chunks, all-gather the parameters."""
        ### BEGIN SOLUTION
        launched = set(self.reduced) | ({self.on_the_wire[0]} if self.on_the_wire else set())
        for b in range(len(self.buckets)):
            if b not in launched:  # a parameter of this bucket got no gradient
                self._launch(b)
        self._land()
        for b, chunk in self.reduced.items():
            self.buckets[b].set_grad(chunk)
        self._reset()
        self.optimizer.step()
        for bucket in self.buckets:
            bucket.all_gather_params()
        ### END SOLUTION


### BEGIN SOLUTION
class _GatherParameter(torch.autograd.Function):
    """Forward: all-gather a parameter from its shards. Backward: reduce-scatter its gradient."""

    @staticmethod
    def forward(ctx, shard, owner, index):
        ctx.owner, ctx.index = owner, index
        return owner._gather(index)

    @staticmethod
    def backward(ctx, grad):
        owner, index = ctx.owner, ctx.index
        numel, chunk = owner.numels[index], owner.shards[index].numel()
        flat = torch.zeros(chunk * owner.world, dtype=grad.dtype, device=grad.device)
        flat[:numel].copy_(grad.reshape(-1))
        reduced = torch.empty(chunk, dtype=grad.dtype, device=grad.device)
        dist.reduce_scatter_single(reduced, flat, group=owner.group)
        return reduced.div_(owner.world), None, None


### END SOLUTION


class Zero3Module(nn.Module):
    """ZeRO stage 3: parameters are partitioned, and gathered only while a layer needs them.

    ``Zero3Module(module, group=None)`` takes over ``module``'s parameters: each rank keeps its
    shard of every parameter (tied parameters once) as its own parameters, so
    ``Zero3Module.parameters()`` yields only this rank's shards and an ordinary optimizer
    built on them holds only this rank's share of the optimizer state. ``module`` itself no
    longer owns any parameter.

    * **Forward**, layer by layer (every submodule that owns parameters, ``module`` itself
      included): just before the layer runs, all-gather its parameters; just after, release
      them. Never gather the whole model at once.
    * **Backward**: the layer's parameters are needed again (for the gradient of its input):
      all-gather them again, use them, release them. The gradient of each full parameter is
      **reduce-scattered** and averaged into the ``.grad`` of this rank's shard.
    * Between steps a rank holds only shards: parameters, gradients and optimizer state are
      all about 1/N of the model's. The graders count every tensor alive on the rank (held
      by attributes, hooks, globals or autograd alike) at the peak of forward, when it ends and
      between steps.

    ``forward(*args)`` returns what ``module(*args)`` returns. ``full_parameters()`` gathers
    and returns the full parameters as ``{name: tensor}``, with the names and shapes of
    ``module.named_parameters()`` (before wrapping); the graders call it after training.

    Hint: ``torch.autograd.graph.saved_tensors_hooks`` lets you replace a gathered parameter
    that autograd wants to save for backward by a small key, and gather it again when
    backward unpacks it.
    """

    def __init__(self, module: nn.Module, group=None) -> None:
        super().__init__()
        ### BEGIN SOLUTION
        self.module = module
        self.group = group
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.shards = nn.ParameterList()
        self.numels: list[int] = []
        self.shapes: list[torch.Size] = []
        self.names: dict[str, int] = {}
        index_of: dict[int, int] = {}
        for name, p in module.named_parameters():  # each tied parameter once
            index_of[id(p)] = len(self.shards)
            self.names[name] = len(self.shards)
            self.numels.append(p.numel())
            self.shapes.append(p.shape)
            chunk = math.ceil(p.numel() / self.world)
            flat = torch.zeros(chunk * self.world, dtype=p.dtype, device=p.device)
            flat[: p.numel()].copy_(p.detach().reshape(-1))
            shard = flat[self.rank * chunk : (self.rank + 1) * chunk].clone()
            self.shards.append(nn.Parameter(shard, requires_grad=p.requires_grad))
        self.units: list[tuple[nn.Module, list[tuple[str, int]]]] = []
        for layer in module.modules():
            owned = [(name, index_of[id(p)]) for name, p in layer._parameters.items() if p is not None]
            if not owned:
                continue
            for name, _ in owned:
                del layer._parameters[name]
                setattr(layer, name, None)
            self.units.append((layer, owned))
            layer.register_forward_pre_hook(self._make_gather(owned))
            layer.register_forward_hook(self._make_release(owned))
        self.gathered: dict[int, int] = {}  # storage address of a gathered parameter -> index
        ### END SOLUTION

    ### BEGIN SOLUTION
    def _gather(self, index: int) -> torch.Tensor:
        shard = self.shards[index]
        flat = torch.empty(shard.numel() * self.world, dtype=shard.dtype, device=shard.device)
        dist.all_gather_single(flat, shard.detach(), group=self.group)
        return flat[: self.numels[index]].view(self.shapes[index])

    def _make_gather(self, owned):
        def gather(layer, args):
            for name, index in owned:
                full = _GatherParameter.apply(self.shards[index], self, index)
                self.gathered[full.untyped_storage().data_ptr()] = index
                setattr(layer, name, full)

        return gather

    def _make_release(self, owned):
        def release(layer, args, output):
            for name, _ in owned:
                full = getattr(layer, name)
                self.gathered.pop(full.untyped_storage().data_ptr(), None)
                setattr(layer, name, None)

        return release

    def _pack(self, tensor: torch.Tensor):
        index = self.gathered.get(tensor.untyped_storage().data_ptr())
        if index is None:
            return tensor
        return ("gathered", index, tensor.size(), tensor.stride(), tensor.storage_offset())

    def _unpack(self, packed):
        if isinstance(packed, torch.Tensor):
            return packed
        _, index, size, stride, offset = packed
        with torch.no_grad():
            full = self._gather(index)  # gathered again, for backward only
        return full.as_strided(size, stride, offset)

    ### END SOLUTION

    def forward(self, *args, **kwargs):
        ### BEGIN SOLUTION
        with torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack):
            return self.module(*args, **kwargs)
        ### END SOLUTION

    def full_parameters(self) -> dict[str, torch.Tensor]:
        """All-gather every parameter: ``{name: full tensor}`` as in ``module.named_parameters()``."""
        ### BEGIN SOLUTION
        with torch.no_grad():
            return {name: self._gather(index).clone() for name, index in self.names.items()}
        ### END SOLUTION
