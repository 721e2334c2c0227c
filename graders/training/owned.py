"""Hand a rank only what it owns: the rest of a full tensor is poisoned.

Several contracts hand every rank a whole tensor and let it take its own part (chapter 6's
``master_weight``, a block's single-device ``state``, the capstone's state). A rank that computes
with parts it should have received from its peers instead would then pass with the right values
and faked messages. Graders hand such a tensor with everything outside the rank's part set to NaN:
the honest rank never reads it, and the one that does gets NaN where the right values should be.
"""

from __future__ import annotations

import torch

#: how the tensor-parallel layers of a transformer block split their single-device entries
#: (names inside the block): ``0`` by rows (column-parallel: output features), ``1`` by columns
#: (row-parallel: input features); the row-parallel biases and the LayerNorms stay whole
BLOCK_SPLITS = {
    "q.weight": 0,
    "q.bias": 0,
    "k.weight": 0,
    "k.bias": 0,
    "v.weight": 0,
    "v.bias": 0,
    "proj.weight": 1,
    "fc1.weight": 0,
    "fc1.bias": 0,
    "fc2.weight": 1,
}


def only_own_chunk(tensor: torch.Tensor, dim: int, rank: int, world: int) -> torch.Tensor:
    """A copy of ``tensor`` whose chunk ``rank`` of ``world`` along ``dim`` (``torch.chunk``'s
    split) is real and everything else NaN (``tensor`` itself where the split leaves one chunk)."""
    if world == 1 or not tensor.is_floating_point():
        return tensor.detach().clone()
    chunks = tensor.detach().chunk(world, dim=dim)
    start = sum(chunk.shape[dim] for chunk in chunks[:rank])
    poisoned = torch.full_like(tensor, float("nan"))
    if rank < len(chunks):
        poisoned.narrow(dim, start, chunks[rank].shape[dim]).copy_(chunks[rank])
    return poisoned


def block_state_for(state: dict[str, torch.Tensor], rank: int, world: int) -> dict[str, torch.Tensor]:
    """A block's single-device ``state`` as tensor-parallel rank ``rank`` of ``world`` is handed
    it: its chunk of every split entry real (see :data:`BLOCK_SPLITS`), the others whole."""
    handed = {}
    for name, tensor in state.items():
        dim = BLOCK_SPLITS.get(".".join(name.split(".")[-2:]))
        handed[name] = tensor.detach().clone() if dim is None else only_own_chunk(tensor, dim, rank, world)
    return handed
