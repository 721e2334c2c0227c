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


### BEGIN SOLUTION
def _trainable(params) -> list[nn.Parameter]:
    """The parameters that are trained, each tied tensor once, in the given order."""
    unique = {}
    for p in params:
        if p.requires_grad and id(p) not in unique:
            unique[id(p)] = p
    return list(unique.values())


class _PendingPartition:
    """The reads of one partition in flight: ``wait()`` gives its tensors once they are filled."""

    def __init__(self, reads: list, tensors: dict[str, torch.Tensor]) -> None:
        self.reads, self.tensors = reads, tensors

    def wait(self) -> dict[str, torch.Tensor]:
        for read in self.reads:
            read.wait()
        return self.tensors


### END SOLUTION
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
        ### BEGIN SOLUTION
        self.params = _trainable(params)
        self.optimizer_cls, self.hparams = optimizer_cls, hparams
        self.swap, self.group, self.sharded = swap, group, sharded
        # ZeRO-3's shards are this rank's already: one "rank" owning all of them
        self.world, self.rank = (1, 0) if sharded else (dist.get_world_size(group), dist.get_rank(group))
        total = sum(p.numel() for p in self.params)
        self.shard_numel = math.ceil(total / self.world)
        self.bounds = [
            (start, min(start + partition_numel, self.shard_numel))
            for start in range(0, self.shard_numel, partition_numel)
        ]
        self.state_layout: dict[str, tuple[tuple[int, ...], torch.dtype]] = {}  # known after step 1
        mine = self._my_chunk(self._flat([p.detach() for p in self.params], self.params[0].dtype))
        for k, (start, end) in enumerate(self.bounds):  # one partition's fp32 copy at a time
            self._write(k, {"master": mine[start:end].to(torch.float32, copy=True)})
        ### END SOLUTION

    def zero_grad(self, set_to_none: bool = True) -> None:
        ### BEGIN SOLUTION
        for p in self.params:
            p.grad = None
        ### END SOLUTION

    def step(self) -> None:
        ### BEGIN SOLUTION
        grad = self._gradient_shard()
        updated = torch.empty(self.shard_numel, dtype=self.params[0].dtype)
        on_drive = dict(self.state_layout)  # what the drive holds: no state before the first step
        pending = self._read(0, on_drive)
        for k, (start, end) in enumerate(self.bounds):
            tensors = pending.wait()
            if k + 1 < len(self.bounds):
                pending = self._read(k + 1, on_drive)  # the drive reads k+1 while k is stepped
            master, state = self._step_partition(tensors, grad[start:end])
            self._write(k, {"master": master, **state})
            updated[start:end].copy_(master)
            del tensors, master, state  # partition k leaves memory before k+2 is read
        if self.sharded:
            self._scatter_back(updated)
            return
        gathered = torch.empty(self.shard_numel * self.world, dtype=updated.dtype)
        dist.all_gather_single(gathered, updated, group=self.group)
        self._scatter_back(gathered)
        ### END SOLUTION

    ### BEGIN SOLUTION
    def _flat(self, tensors, dtype: torch.dtype) -> torch.Tensor:
        """One per trained parameter (None: zeros), flattened in order into a padded buffer."""
        flat = torch.zeros(self.shard_numel * self.world, dtype=dtype)
        offset = 0
        for p, tensor in zip(self.params, tensors, strict=True):
            if tensor is not None:
                flat[offset : offset + p.numel()].copy_(tensor.reshape(-1))
            offset += p.numel()
        return flat

    def _my_chunk(self, flat: torch.Tensor) -> torch.Tensor:
        return flat[self.rank * self.shard_numel : (self.rank + 1) * self.shard_numel]

    def _gradient_shard(self) -> torch.Tensor:
        """This rank's chunk of the averaged gradients (ZeRO-3's shards: their own, reduced already)."""
        flat = self._flat([p.grad for p in self.params], torch.float32)
        if self.sharded:
            return flat
        shard = torch.empty(self.shard_numel, dtype=torch.float32)
        dist.reduce_scatter_single(shard, flat, group=self.group)
        return shard.div_(self.world)

    def _step_partition(self, tensors: dict, grad: torch.Tensor):
        """Step one partition with a fresh inner optimizer holding the state read from the drive."""
        master = nn.Parameter(tensors.pop("master"))
        master.grad = grad
        inner = self.optimizer_cls([master], **self.hparams)
        if tensors:
            inner.state[master] = tensors
        inner.step()
        state = dict(inner.state[master])
        if not self.state_layout:
            self.state_layout = {name: (tuple(t.shape), t.dtype) for name, t in state.items()}
        return master.detach(), state

    def _read(self, k: int, layout: dict) -> _PendingPartition:
        start, end = self.bounds[k]
        tensors = {"master": torch.empty(end - start, dtype=torch.float32)}
        for name, (shape, dtype) in layout.items():
            tensors[name] = torch.empty(end - start if shape else (), dtype=dtype)
        reads = [self.swap.read_async(f"part{k}.{name}", out) for name, out in tensors.items()]
        return _PendingPartition(reads, tensors)

    def _write(self, k: int, tensors: dict[str, torch.Tensor]) -> None:
        """Each file written under a temporary name, then renamed onto its own."""
        for name, tensor in tensors.items():
            final = f"part{k}.{name}"
            self.swap.write(final + ".tmp", tensor.contiguous())
            self.swap.replace(final + ".tmp", final)

    def _scatter_back(self, flat: torch.Tensor) -> None:
        offset = 0
        with torch.no_grad():
            for p in self.params:
                p.copy_(flat[offset : offset + p.numel()].view_as(p))
                offset += p.numel()

    ### END SOLUTION
