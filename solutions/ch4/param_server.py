"""Chapter 4: a parameter server, the first generation of data parallelism.

Every rank of ``group`` holds a full replica of the model and computes the gradients of its
own share of the global batch. The **server**, group rank 0, then

1. receives every other rank's gradients,
2. averages them with its own, into its parameters' ``.grad``,
3. takes the optimizer step (it is the only rank with an optimizer), and
4. sends the updated parameters back to every other rank (the workers).

Only point-to-point calls are allowed (``send``, ``recv``, ``isend``, ``irecv``,
``batch_isend_irecv``); the built-in collectives raise ``BannedCallError``. That way the
trace shows what a server really moves: every message goes to or comes from the server, so
its traffic grows with the number of workers while each worker's stays the same.
"""

import torch
import torch.distributed as dist
from torch import nn


def param_server_step(module: nn.Module, optimizer: torch.optim.Optimizer | None, group=None) -> None:
    """One synchronous parameter-server step; every rank of ``group`` calls it after backward.

    ``module`` is this rank's replica. Its parameters' ``.grad`` hold the gradients of this
    rank's local loss (the mean over its own rows; all ranks have as many rows, so the average
    of the ranks' gradients is the gradient of the global batch).

    ``optimizer`` steps the module's trainable parameters on the server (group rank 0); it is
    ``None`` on every other rank, which never steps.

    Which parameters take part: the trainable ones (``requires_grad``) in the order of
    ``module.parameters()`` (a tied weight appears there once). Those whose ``.grad`` is
    ``None`` (a parameter unused in forward) have no gradient on any rank: they send nothing,
    and on the server their ``.grad`` must stay ``None`` so the optimizer skips them, exactly
    as on one device. Frozen parameters (``requires_grad=False``) never change.

    On return, every rank's parameters equal the server's updated parameters. Do not zero
    or free the gradients; the caller does that before the next backward.

    Allowed: ``send``, ``recv``, ``isend``, ``irecv``, ``batch_isend_irecv``. Talk to group
    rank ``r`` with ``group=group, group_dst=r`` (``group_src=r`` to receive).
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    params = [p for p in module.parameters() if p.requires_grad]
    with_grad = [p for p in params if p.grad is not None]
    if rank == 0:
        total = _flat([p.grad for p in with_grad])
        incoming = [torch.empty_like(total) for _ in range(1, world)]
        works = [dist.irecv(buf, group=group, group_src=w) for w, buf in enumerate(incoming, start=1)]
        for work in works:
            work.wait()
        for buf in incoming:
            total += buf
        total /= world
        _unflat_into(total, [p.grad for p in with_grad])
        optimizer.step()
        updated = _flat([p.detach() for p in params])
        works = [dist.isend(updated, group=group, group_dst=w) for w in range(1, world)]
        for work in works:
            work.wait()
    else:
        dist.send(_flat([p.grad for p in with_grad]), group=group, group_dst=0)
        updated = _flat([p.detach() for p in params])
        dist.recv(updated, group=group, group_src=0)
        with torch.no_grad():
            _unflat_into(updated, params)
    ### END SOLUTION


### BEGIN SOLUTION
def _flat(tensors: list[torch.Tensor]) -> torch.Tensor:
    """One contiguous 1-D copy of ``tensors``, back to back (one message instead of many)."""
    if not tensors:
        return torch.empty(0)
    return torch.cat([t.reshape(-1) for t in tensors])


def _unflat_into(flat: torch.Tensor, tensors: list[torch.Tensor]) -> None:
    """Copy consecutive slices of ``flat`` into ``tensors``, in place."""
    offset = 0
    for t in tensors:
        t.copy_(flat[offset : offset + t.numel()].view_as(t))
        offset += t.numel()


### END SOLUTION
