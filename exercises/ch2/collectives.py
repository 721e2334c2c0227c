# Generated from solutions/ch2/collectives.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 2: collective communication built from point-to-point messages.

Every function here must use only ``dist.send``, ``dist.recv``, ``dist.isend``, ``dist.irecv``
(and ``dist.batch_isend_irecv``). The built-in collectives (``dist.all_reduce`` and friends)
are banned: the graders make them raise ``BannedCallError``.

Conventions shared by all functions:

* ``group`` is a process group or ``None`` for the default world. Every rank of ``group``
  calls the function; ranks outside it do not.
* ``rank = dist.get_rank(group)`` and ``world = dist.get_world_size(group)`` are positions
  *inside* the group. To talk to the group rank ``r``, pass ``group=group, group_dst=r`` to
  ``send``/``isend`` (``group_src=r`` to ``recv``/``irecv``), or convert it to a global rank
  with ``dist.get_global_rank(group, r)``.
* ``src`` and ``dst`` arguments are **global** ranks, as in ``torch.distributed``.
* ``op`` is one of ``"sum"``, ``"avg"``, ``"max"``, ``"min"``. ``"avg"`` is the sum divided
  by the group size, and is only asked of floating-point tensors.
* The ring runs in group-rank order: rank ``r`` sends only to ``(r + 1) % world`` (its right
  neighbour) and receives only from ``(r - 1) % world`` (its left neighbour).
* gloo's ``send`` blocks until the peer has posted the matching ``recv``.
"""

import torch
import torch.distributed as dist

OPS = ("sum", "avg", "max", "min")


def combine_(acc: torch.Tensor, incoming: torch.Tensor, op: str) -> None:
    """Fold ``incoming`` into ``acc`` in place with ``op`` (``"avg"`` folds like ``"sum"``)."""
    if op in ("sum", "avg"):
        acc.add_(incoming)
    elif op == "max":
        torch.maximum(acc, incoming, out=acc)
    elif op == "min":
        torch.minimum(acc, incoming, out=acc)
    else:
        raise ValueError(f"unknown op {op!r}; expected one of {OPS}")


def ring_shift(tensor: torch.Tensor, group=None) -> torch.Tensor:
    """Send ``tensor`` to the right neighbour and return what the left neighbour sent.

    Returns a new tensor with the shape and dtype of ``tensor``; ``tensor`` is not modified.
    With a single rank, returns a copy of ``tensor``. Must not deadlock for any group size.
    Allowed: send, recv, isend, irecv.
    """
    raise NotImplementedError("[dtlab TODO] ch2/collectives.py: implement ring_shift")


def broadcast(tensor: torch.Tensor, src: int = 0, group=None) -> None:
    """Copy ``tensor`` of global rank ``src`` into ``tensor`` on every rank of ``group``, in place.

    Use a binomial tree: in each round every rank that already has the data sends it to one
    rank that does not, so no rank takes part in more than ceil(log2(world)) rounds, and
    world - 1 messages are sent in total. Returns None. Allowed: send, recv, isend, irecv.
    """
    raise NotImplementedError("[dtlab TODO] ch2/collectives.py: implement broadcast")


def reduce(tensor: torch.Tensor, dst: int = 0, op: str = "sum", group=None) -> None:
    """Reduce ``tensor`` over ``group`` with ``op``; the result lands in ``tensor`` on global rank ``dst``.

    Use a binomial tree (the broadcast tree run backwards): world - 1 messages in total, at
    most ceil(log2(world)) rounds. On ranks other than ``dst`` the contents of ``tensor``
    afterwards are unspecified, as in ``torch.distributed.reduce``. Returns None.
    Allowed: send, recv, isend, irecv.
    """
    raise NotImplementedError("[dtlab TODO] ch2/collectives.py: implement reduce")


def ring_all_gather(tensor: torch.Tensor, group=None) -> torch.Tensor:
    """Return ``torch.cat`` of every rank's ``tensor`` along dim 0, in group-rank order.

    Every rank passes a tensor of the same shape and dtype. world - 1 steps; in each step a
    rank sends one block to its right neighbour and receives one from its left neighbour.
    ``tensor`` is not modified. Allowed: send, recv, isend, irecv.
    """
    raise NotImplementedError("[dtlab TODO] ch2/collectives.py: implement ring_all_gather")


def ring_reduce_scatter(tensor: torch.Tensor, op: str = "sum", group=None) -> torch.Tensor:
    """Reduce ``tensor`` over the group and return this rank's chunk of the flattened result.

    The chunks are ``torch.tensor_split(reduced.flatten(), world)``: rank r returns chunk r
    (a 1-D tensor, possibly empty: uneven sizes and numel < world must work). world - 1 ring
    steps; each rank sends at most (world - 1) * ceil(numel / world) elements, all to its
    right neighbour. ``tensor`` is not modified. Allowed: send, recv, isend, irecv.
    """
    raise NotImplementedError("[dtlab TODO] ch2/collectives.py: implement ring_reduce_scatter")


def ring_all_reduce(tensor: torch.Tensor, op: str = "sum", group=None) -> None:
    """Reduce ``tensor`` over the group with ``op``, in place on every rank. Returns None.

    A ring reduce-scatter followed by a ring all-gather, on the chunks
    ``torch.tensor_split(tensor.flatten(), world)``. Each rank sends at most
    2 * (world - 1) * ceil(numel / world) elements, all to its right neighbour.
    Allowed: send, recv, isend, irecv.
    """
    raise NotImplementedError("[dtlab TODO] ch2/collectives.py: implement ring_all_reduce")


def all_to_all(inputs: list[torch.Tensor], group=None) -> list[torch.Tensor]:
    """Personalised exchange: returns ``out`` where ``out[j]`` is what rank j passed as ``inputs[rank]``.

    ``inputs`` has one tensor per group rank; all tensors share one dtype, but their shapes
    (number of dimensions included) may differ from one pair of ranks to another, so the
    receiver has to learn each incoming shape first. ``out[rank]`` is a copy of
    ``inputs[rank]`` (nothing is sent to oneself). ``inputs`` is not modified.
    Allowed: send, recv, isend, irecv.
    """
    raise NotImplementedError("[dtlab TODO] ch2/collectives.py: implement all_to_all")
