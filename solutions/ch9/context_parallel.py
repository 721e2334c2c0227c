"""Chapter 9: the zigzag layout of context parallelism.

With a causal mask, the queries late in the sequence attend to many more keys than the early
ones. Split the sequence into ``P`` contiguous chunks and rank ``P-1`` does almost all the work
while rank 0 waits. The zigzag layout (Megatron's context parallelism, torch's head-tail load
balancer) cuts the sequence into ``2P`` equal chunks and gives rank ``r`` chunks ``r`` and
``2P-1-r``: an early chunk and a late one, so every rank has the same number of unmasked
``(query, key)`` pairs.

``zigzag_positions(rank, world, seq)``: the positions of the whole sequence that ``rank`` keeps,
in the order it keeps them (its first chunk, then its second); ``ValueError`` when ``2·world``
does not divide ``seq``.

``zigzag_shard(x, rank, world, dim=0)``: the part of ``x`` that ``rank`` keeps along ``dim``.

``zigzag_unshard(shards, dim=0)``: the whole sequence from every rank's shard (``shards[r]`` is
rank ``r``'s), so that ``zigzag_unshard([zigzag_shard(x, r, P) for r in range(P)]) == x``.
"""

import torch


def zigzag_positions(rank: int, world: int, seq: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    if seq % (2 * world):
        raise ValueError(f"a sequence of {seq} cannot be cut into 2 × {world} equal chunks")
    chunk = seq // (2 * world)
    early = torch.arange(rank * chunk, (rank + 1) * chunk)
    late = torch.arange((2 * world - 1 - rank) * chunk, (2 * world - rank) * chunk)
    return torch.cat([early, late])
    ### END SOLUTION


def zigzag_shard(x: torch.Tensor, rank: int, world: int, dim: int = 0) -> torch.Tensor:
    ### BEGIN SOLUTION
    return x.index_select(dim, zigzag_positions(rank, world, x.shape[dim]))
    ### END SOLUTION


def zigzag_unshard(shards: list[torch.Tensor], dim: int = 0) -> torch.Tensor:
    ### BEGIN SOLUTION
    world = len(shards)
    seq = world * shards[0].shape[dim]
    shape = list(shards[0].shape)
    shape[dim] = seq
    whole = shards[0].new_empty(shape)
    for rank, shard in enumerate(shards):
        whole.index_copy_(dim, zigzag_positions(rank, world, seq), shard)
    return whole
    ### END SOLUTION
