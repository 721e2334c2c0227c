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
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    if world == 1:
        return tensor.clone()
    received = torch.empty_like(tensor)
    outgoing = dist.isend(tensor.contiguous(), group=group, group_dst=(rank + 1) % world)
    incoming = dist.irecv(received, group=group, group_src=(rank - 1) % world)
    outgoing.wait()
    incoming.wait()
    return received
    ### END SOLUTION


def broadcast(tensor: torch.Tensor, src: int = 0, group=None) -> None:
    """Copy ``tensor`` of global rank ``src`` into ``tensor`` on every rank of ``group``, in place.

    Use a binomial tree: in each round every rank that already has the data sends it to one
    rank that does not, so no rank takes part in more than ceil(log2(world)) rounds, and
    world - 1 messages are sent in total. Returns None. Allowed: send, recv, isend, irecv.
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    root = dist.get_group_rank(group, src) if group is not None else src
    me = (rank - root) % world  # position relative to the root
    mask = 1
    while mask < world:  # receive once, from the rank `mask` places before me
        if me & mask:
            dist.recv(tensor, group=group, group_src=(me - mask + root) % world)
            break
        mask <<= 1
    mask >>= 1
    while mask > 0:  # then forward to the ranks below me in the tree, farthest first
        if me + mask < world:
            dist.send(tensor, group=group, group_dst=(me + mask + root) % world)
        mask >>= 1
    ### END SOLUTION


def reduce(tensor: torch.Tensor, dst: int = 0, op: str = "sum", group=None) -> None:
    """Reduce ``tensor`` over ``group`` with ``op``; the result lands in ``tensor`` on global rank ``dst``.

    Use a binomial tree (the broadcast tree run backwards): world - 1 messages in total, at
    most ceil(log2(world)) rounds. On ranks other than ``dst`` the contents of ``tensor``
    afterwards are unspecified, as in ``torch.distributed.reduce``. Returns None.
    Allowed: send, recv, isend, irecv.
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    root = dist.get_group_rank(group, dst) if group is not None else dst
    me = (rank - root) % world
    incoming = torch.empty_like(tensor)
    mask = 1
    while mask < world:
        if me & mask:  # hand my partial result to my parent, and stop
            dist.send(tensor, group=group, group_dst=(me - mask + root) % world)
            break
        if me + mask < world:  # fold in a child's partial result
            dist.recv(incoming, group=group, group_src=(me + mask + root) % world)
            combine_(tensor, incoming, op)
        mask <<= 1
    if op == "avg" and me == 0:
        tensor.div_(world)
    ### END SOLUTION


def ring_all_gather(tensor: torch.Tensor, group=None) -> torch.Tensor:
    """Return ``torch.cat`` of every rank's ``tensor`` along dim 0, in group-rank order.

    Every rank passes a tensor of the same shape and dtype. world - 1 steps; in each step a
    rank sends one block to its right neighbour and receives one from its left neighbour.
    ``tensor`` is not modified. Allowed: send, recv, isend, irecv.
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    right, left = (rank + 1) % world, (rank - 1) % world
    blocks = [torch.empty_like(tensor, memory_format=torch.contiguous_format) for _ in range(world)]
    blocks[rank].copy_(tensor)
    for step in range(world - 1):
        send_block, recv_block = (rank - step) % world, (rank - step - 1) % world
        outgoing = dist.isend(blocks[send_block], group=group, group_dst=right)
        incoming = dist.irecv(blocks[recv_block], group=group, group_src=left)
        outgoing.wait()
        incoming.wait()
    return torch.cat(blocks, dim=0)
    ### END SOLUTION


def ring_reduce_scatter(tensor: torch.Tensor, op: str = "sum", group=None) -> torch.Tensor:
    """Reduce ``tensor`` over the group and return this rank's chunk of the flattened result.

    The chunks are ``torch.tensor_split(reduced.flatten(), world)``: rank r returns chunk r
    (a 1-D tensor, possibly empty: uneven sizes and numel < world must work). world - 1 ring
    steps; each rank sends at most (world - 1) * ceil(numel / world) elements, all to its
    right neighbour. ``tensor`` is not modified. Allowed: send, recv, isend, irecv.
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    chunks = list(torch.tensor_split(tensor.flatten().clone(), world))
    _reduce_scatter_chunks_(chunks, op, group)
    return chunks[rank].clone()
    ### END SOLUTION


def ring_all_reduce(tensor: torch.Tensor, op: str = "sum", group=None) -> None:
    """Reduce ``tensor`` over the group with ``op``, in place on every rank. Returns None.

    A ring reduce-scatter followed by a ring all-gather, on the chunks
    ``torch.tensor_split(tensor.flatten(), world)``. Each rank sends at most
    2 * (world - 1) * ceil(numel / world) elements, all to its right neighbour.
    Allowed: send, recv, isend, irecv.
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    right, left = (rank + 1) % world, (rank - 1) % world
    flat = tensor.view(-1) if tensor.is_contiguous() else tensor.flatten()
    chunks = list(torch.tensor_split(flat, world))
    _reduce_scatter_chunks_(chunks, op, group)  # rank r now owns the finished chunk r
    for step in range(world - 1):  # all-gather: pass the finished chunks around the ring
        send_chunk, recv_chunk = (rank - step) % world, (rank - step - 1) % world
        outgoing = dist.isend(chunks[send_chunk], group=group, group_dst=right)
        receiving = dist.irecv(chunks[recv_chunk], group=group, group_src=left)
        outgoing.wait()
        receiving.wait()
    if not tensor.is_contiguous():  # flatten() made a copy: write the result back
        tensor.copy_(flat.view(tensor.shape))
    ### END SOLUTION


def all_to_all(inputs: list[torch.Tensor], group=None) -> list[torch.Tensor]:
    """Personalised exchange: returns ``out`` where ``out[j]`` is what rank j passed as ``inputs[rank]``.

    ``inputs`` has one tensor per group rank; all tensors share one dtype, but their shapes
    (number of dimensions included) may differ from one pair of ranks to another, so the
    receiver has to learn each incoming shape first. ``out[rank]`` is a copy of
    ``inputs[rank]`` (nothing is sent to oneself). ``inputs`` is not modified.
    Allowed: send, recv, isend, irecv.
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    out = [torch.empty(0)] * world
    out[rank] = inputs[rank].clone()
    for step in range(1, world):  # pairwise exchange: talk to rank+step, hear from rank-step
        dst, src = (rank + step) % world, (rank - step) % world
        shape_out = torch.tensor([inputs[dst].dim(), *inputs[dst].shape], dtype=torch.int64)
        ndim_in = torch.empty(1, dtype=torch.int64)
        _exchange(shape_out[:1], ndim_in, dst, src, group)
        shape_in = torch.empty(int(ndim_in), dtype=torch.int64)
        _exchange(shape_out[1:], shape_in, dst, src, group)
        out[src] = torch.empty(shape_in.tolist(), dtype=inputs[dst].dtype)
        _exchange(inputs[dst].contiguous(), out[src], dst, src, group)
    return out
    ### END SOLUTION


### BEGIN SOLUTION
def _reduce_scatter_chunks_(chunks: list[torch.Tensor], op: str, group) -> None:
    """Ring reduce-scatter in place over ``chunks`` (one per rank): rank r ends with chunk r reduced."""
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    right, left = (rank + 1) % world, (rank - 1) % world
    for step in range(world - 1):  # send the chunk I just finished, fold in the one arriving
        send_chunk, recv_chunk = (rank - step - 1) % world, (rank - step - 2) % world
        incoming = torch.empty_like(chunks[recv_chunk])
        outgoing = dist.isend(chunks[send_chunk], group=group, group_dst=right)
        receiving = dist.irecv(incoming, group=group, group_src=left)
        outgoing.wait()
        receiving.wait()
        combine_(chunks[recv_chunk], incoming, op)
    if op == "avg":
        chunks[rank].div_(world)


def _exchange(outgoing: torch.Tensor, incoming: torch.Tensor, dst: int, src: int, group) -> None:
    """Send ``outgoing`` to group rank ``dst`` while receiving ``incoming`` from group rank ``src``."""
    sending = dist.isend(outgoing, group=group, group_dst=dst)
    receiving = dist.irecv(incoming, group=group, group_src=src)
    sending.wait()
    receiving.wait()


### END SOLUTION
