# Generated from solutions/ch4/ddp.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 4: DistributedDataParallel with gradient buckets and communication overlap.

Every rank of ``group`` holds a full replica and trains on its own share of the batch. After
backward, every gradient must be the average of the ranks' gradients. Instead of one
all-reduce per parameter (too many small messages) or one at the end (no overlap), gradients
are grouped into **buckets**, and a bucket's all-reduce is launched asynchronously as soon as
all of its gradients are ready, while backward is still computing the others.

**How buckets are formed** (graded exactly): take the trainable parameters
(``requires_grad``; a tied weight once) in *reverse* order of ``module.parameters()``, since
backward produces the last layers' gradients first. Walk them in that order, adding each one
to the open bucket; as soon as the open bucket holds at least
``cap = bucket_cap_mb * 2**20`` bytes (``numel * element_size`` summed), close it. The last
bucket may hold less. Example: sizes (in reverse order) 12, 168, 28 bytes and a cap of 100
bytes give two buckets, [12, 168] and [28].

Allowed: every ``torch.distributed`` call. ``torch.nn.parallel.DistributedDataParallel`` is
banned: you are writing it.
"""

import contextlib

import torch
import torch.distributed as dist
from torch import nn


class DDP(nn.Module):
    """Data-parallel wrapper: ``DDP(module, group=None, bucket_cap_mb=25)``.

    At construction, every parameter and buffer of ``module`` (trainable or not) is
    broadcast from group rank 0, so all replicas start equal; the buckets are formed as the
    module docstring says, and a post-accumulate-grad hook
    (``Tensor.register_post_accumulate_grad_hook``) is registered on every trainable
    parameter.

    Training loop, on every rank of ``group``::

        ddp = DDP(model, group=group, bucket_cap_mb=cap)
        optimizer.zero_grad(set_to_none=True)
        loss_fn(ddp(inputs)).backward()         # buckets are all-reduced during backward
        ddp.finish_gradient_synchronization()   # wait; grads are now averaged
        optimizer.step()

    Contract, checked by the graders:

    * ``forward(*args, **kwargs)`` returns ``module(*args, **kwargs)``; ``self.module`` is the
      wrapped module.
    * Outside ``no_sync()``, each backward all-reduces every bucket exactly once, as one flat
      buffer of the gradients' dtype (``dist.all_reduce`` with ``async_op=True``), the launch
      of a bucket happening in the hook of its last gradient. The graders compare the sizes
      of the all-reduces with the buckets', and check that the first all-reduce is issued
      before ``backward()`` returns.
    * A bucket that is still incomplete when backward ends (one of its parameters got no
      gradient in this forward) is all-reduced by ``finish_gradient_synchronization()``;
      such parameters contribute zeros and keep ``grad is None``.
    * After ``finish_gradient_synchronization()`` returns, every ``.grad`` is the average over
      the ranks of ``group``.
    * Inside ``with ddp.no_sync():``, backward only accumulates local gradients (no
      communication at all); the next backward outside it all-reduces the accumulated sum.
    """

    def __init__(self, module: nn.Module, group=None, bucket_cap_mb: float = 25.0) -> None:
        super().__init__()
        self.module = module
        self.group = group
        raise NotImplementedError("[dtlab TODO] ch4/ddp.py: implement DDP.__init__")

    def forward(self, *args, **kwargs):
        raise NotImplementedError("[dtlab TODO] ch4/ddp.py: implement DDP.forward")

    @contextlib.contextmanager
    def no_sync(self):
        """Within this context, backward accumulates local gradients without communicating."""
        raise NotImplementedError("[dtlab TODO] ch4/ddp.py: implement DDP.no_sync")

    def finish_gradient_synchronization(self) -> None:
        """Launch the buckets backward left incomplete, wait for all, and write the averages."""
        raise NotImplementedError("[dtlab TODO] ch4/ddp.py: implement DDP.finish_gradient_synchronization")
