# Generated from solutions/ch5/zero.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
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
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero1Optimizer.__init__")

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter (set them to None)."""
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero1Optimizer.zero_grad")

    def step(self) -> None:
        """Average the gradients into this rank's shard, step it, all-gather the parameters."""
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero1Optimizer.step")


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
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero2Optimizer.__init__")

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every gradient: the parameters' and the owned chunks'."""
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero2Optimizer.zero_grad")

    def step(self) -> None:
        """Reduce the incomplete buckets, wait, step the owned chunks, all-gather the parameters."""
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero2Optimizer.step")


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
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero3Module.__init__")

    def forward(self, *args, **kwargs):
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero3Module.forward")

    def full_parameters(self) -> dict[str, torch.Tensor]:
        """All-gather every parameter: ``{name: full tensor}`` as in ``module.named_parameters()``."""
        raise NotImplementedError("[dtlab TODO] ch5/zero.py: implement Zero3Module.full_parameters")
