# Generated from solutions/ch5/infinity.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 5: ZeRO-Infinity's optimizer. This rank's fp32 master weights and optimizer state live
on NVMe and pass through host memory one partition at a time while the step runs.

The data parallelism is ZeRO's (see zero.py): every rank of ``group`` holds the whole model and
computes gradients on its own share of the batch. At ``step()`` the gradients are averaged and
partitioned in one ``reduce_scatter_single``: the trained parameters are flattened in order,
padded with zeros to a multiple of N (the group size) and cut into N equal chunks (the
**shard**; group rank r owns chunk r). The rank steps its shard and all-gathers the updated
shards back into every parameter, in place.

What is new is where the shard's fp32 master weights and optimizer state live: not in memory
but on the drive ``swap`` the caller hands over (the stand-in for an NVMe folder: one folder of
files per rank). The shard is cut into **partitions** of ``partition_numel`` elements (the last may be
shorter); partition k's files are named ``part{k}.<what>`` (``part2.master``,
``part2.exp_avg``…; a temporary one ``part2.exp_avg.tmp``). The drive:

* ``swap.write(name, tensor)``: the file becomes the tensor's bytes (truncated first);
* ``swap.replace(src, dst)``: renames ``src`` to ``dst`` atomically;
* ``swap.read(name, out)``: fills the tensor ``out`` you allocated (sizes must match);
* ``swap.read_async(name, out)`` returns at once; ``.wait()`` on its result blocks until
  ``out`` is filled. Tensors handed to the drive are contiguous CPU tensors.

Rules, each graded:

* **Paging.** ``step()`` reads each partition's master and state, steps them with
  ``optimizer_cls`` (for example ``torch.optim.AdamW``), and writes them back: every file once
  per step, no more (the first step reads only the masters: there is no state yet).
* **Prefetch.** The reads of partition k+1 are issued (``read_async``) before partition k is
  stepped and awaited only after partition k's write-back has begun: the drive reads while the
  optimizer computes.
* **Memory.** At most two partitions' masters and state are alive at any moment (the one
  being stepped, the one being read). Between steps the optimizer keeps nothing but, if you
  like, two partitions' buffers that it reuses (no copy of the state, no other buffer).
* **Crash safety.** A write may be cut off by a crash: write to a temporary name, then
  ``replace`` it onto the real one, so that every file holds a whole step's values.
* On disk after every step: the masters and the whole optimizer state of the shard
  (12 bytes per element for AdamW), and a few bytes of scalars per partition at most.
"""

import math

import torch
import torch.distributed as dist
from torch import nn


class InfinityOptimizer:
    """``InfinityOptimizer(params, optimizer_cls, swap, group=None, partition_numel=4096, **hparams)``.

    * Construction: the trained parameters (``requires_grad``, each tied tensor once, in the
      order of ``params``); this rank's chunk of their flat, padded concatenation as fp32
      masters, written to the drive partition by partition (nothing of it kept in memory).
    * ``step()``: reduce-scatter the averaged gradients (a parameter without a gradient counts
      as zeros); page the partitions through memory as the module docstring says, stepping each
      with a fresh ``optimizer_cls([master], **hparams)`` whose state is the one read from the
      drive; all-gather the updated shards into the parameters, in place.
    * ``zero_grad()``: set the parameters' gradients to None.
    * ``sharded=True`` composes it with ZeRO-3: ``params`` are this rank's shards (what a
      ``Zero3Module``'s ``parameters()`` yields), whose gradients backward has already
      reduce-scattered and averaged. The shard is then their flat concatenation, unpadded;
      ``step()`` pages it through the drive as above and copies the updated values into the
      shards in place, with no collective of its own (the module gathers the parameters).
    """

    def __init__(
        self,
        params,
        optimizer_cls,
        swap,
        group=None,
        partition_numel: int = 4096,
        sharded: bool = False,
        **hparams,
    ) -> None:
        raise NotImplementedError("[dtlab TODO] ch5/infinity.py: implement InfinityOptimizer.__init__")

    def zero_grad(self, set_to_none: bool = True) -> None:
        raise NotImplementedError("[dtlab TODO] ch5/infinity.py: implement InfinityOptimizer.zero_grad")

    def step(self) -> None:
        raise NotImplementedError("[dtlab TODO] ch5/infinity.py: implement InfinityOptimizer.step")
