# Generated from solutions/ch4/param_server.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
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
    raise NotImplementedError("[dtlab TODO] ch4/param_server.py: implement param_server_step")
