"""What each rank of the capstone is handed: only what its place in the grid lets it read.

The contract hands every rank the single-device state and the global batch, so that a rank
finds its own part itself. Everything outside that part is poisoned, so that a rank which
computes what it should have received (the whole model, another stage's blocks, its tp
neighbours' heads, another replica's columns) gets a wrong loss instead of a right one:

* weights of other stages, and the rows or columns of this stage's tensor-parallel layers that
  belong to the other ranks of its tp group, are NaN (:mod:`graders.training.owned`; the
  LayerNorms, a row-parallel layer's bias and the embeddings and head of the rank's own stage
  stay whole);
* token ids are real only on the first stage, in this rank's dp columns; targets only on the
  last stage, in its dp columns; every other id is ``POISONED_ID``, which no embedding or loss
  accepts.
"""

from __future__ import annotations

import torch

from graders.chapters.ch11.framework.cases import TrainCase
from graders.chapters.ch11.framework.reference import coords
from graders.training.owned import BLOCK_SPLITS, only_own_chunk

#: a token id or target no vocabulary has: reading it raises, in the embedding and in the loss
POISONED_ID = -1


def _stage_of(case: TrainCase, name: str) -> int | None:
    """The pipeline stage an entry of the state belongs to; None for the first-and-last entries
    (``token_embedding``, ``position_embedding`` on the first, ``ln``, ``head`` on the last)."""
    if name.startswith("blocks."):
        return int(name.split(".")[1]) // (case.layers // case.pp)
    if name.startswith(("token_embedding.", "position_embedding.")):
        return 0
    return case.pp - 1


def state_for(case: TrainCase, rank: int, state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``state`` as ``rank`` is handed it: its own stage's entries (its tp chunk of the split ones)
    real, every other entry NaN. The keys, shapes and dtypes are the single-device state's."""
    place = coords(case, rank)
    handed = {}
    for name, tensor in state.items():
        if _stage_of(case, name) != place["pp"]:
            handed[name] = torch.full_like(tensor, float("nan"))
            continue
        dim = BLOCK_SPLITS.get(".".join(name.split(".")[-2:])) if name.startswith("blocks.") else None
        if dim is None:
            handed[name] = tensor.detach().clone()
        else:
            handed[name] = only_own_chunk(tensor, dim, place["tp"], case.tp)
    return handed


def batch_for(case: TrainCase, rank: int, tokens: torch.Tensor, targets: torch.Tensor):
    """``(tokens, targets)`` of one global batch as ``rank`` is handed it: token ids real on the
    first stage and targets on the last, in the rank's dp columns only; ``POISONED_ID`` else."""
    place = coords(case, rank)
    width = tokens.shape[1] // case.dp
    columns = slice(place["dp"] * width, (place["dp"] + 1) * width)
    handed = []
    for values, stage in ((tokens, 0), (targets, case.pp - 1)):
        poisoned = torch.full_like(values, POISONED_ID)
        if place["pp"] == stage:
            poisoned[:, columns] = values[:, columns]
        handed.append(poisoned)
    return tuple(handed)
