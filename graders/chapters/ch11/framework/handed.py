"""What each rank of the capstone is handed: only what its place in the grid lets it read.

The contract hands every rank the single-device state and the global batch, so that a rank
finds its own part itself. Everything outside that part is poisoned, so that a rank which
computes what it should have received (the whole model, another stage's blocks, its tp
neighbours' heads, another replica's columns) gets a wrong loss instead of a right one:

* weights of other stages, and the rows or columns of this stage's tensor-parallel layers that
  belong to the other ranks of its tp group, are NaN (the LayerNorms, a row-parallel layer's
  bias and the embeddings and head of the rank's own stage stay whole);
* token ids are real only on the first stage, in this rank's dp columns; targets only on the
  last stage, in its dp columns; every other id is ``POISONED_ID``, which no embedding or loss
  accepts.
"""

from __future__ import annotations

import torch

from graders.chapters.ch11.framework.cases import TrainCase
from graders.chapters.ch11.framework.reference import coords

#: a token id or target no vocabulary has: reading it raises, in the embedding and in the loss
POISONED_ID = -1

#: how a block's tensor-parallel entries are split over the tp group (single-device names):
#: ``rows`` (column-parallel: output features) or ``columns`` (row-parallel: input features)
TP_SPLITS = {
    "attention.q.weight": "rows",
    "attention.q.bias": "rows",
    "attention.k.weight": "rows",
    "attention.k.bias": "rows",
    "attention.v.weight": "rows",
    "attention.v.bias": "rows",
    "attention.proj.weight": "columns",
    "mlp.fc1.weight": "rows",
    "mlp.fc1.bias": "rows",
    "mlp.fc2.weight": "columns",
}


def _stage_of(case: TrainCase, name: str) -> int | None:
    """The pipeline stage an entry of the state belongs to; None for the first-and-last entries
    (``token_embedding``, ``position_embedding`` on the first, ``ln``, ``head`` on the last)."""
    if name.startswith("blocks."):
        return int(name.split(".")[1]) // (case.layers // case.pp)
    if name.startswith(("token_embedding.", "position_embedding.")):
        return 0
    return case.pp - 1


def _own_slice(tensor: torch.Tensor, how: str, tp: int, tp_rank: int) -> torch.Tensor:
    """``tensor`` with everything outside tp rank ``tp_rank``'s chunk set to NaN."""
    poisoned = torch.full_like(tensor, float("nan"))
    dim = 0 if how == "rows" else 1
    size = tensor.shape[dim] // tp
    keep = slice(tp_rank * size, (tp_rank + 1) * size)
    index = (keep,) if dim == 0 else (slice(None), keep)
    poisoned[index] = tensor[index]
    return poisoned


def state_for(case: TrainCase, rank: int, state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``state`` as ``rank`` is handed it: its own stage's entries (its tp chunk of the split ones)
    real, every other entry NaN. The keys, shapes and dtypes are the single-device state's."""
    place = coords(case, rank)
    handed = {}
    for name, tensor in state.items():
        if _stage_of(case, name) != place["pp"]:
            handed[name] = torch.full_like(tensor, float("nan"))
            continue
        how = TP_SPLITS.get(name.split(".", 2)[-1]) if name.startswith("blocks.") else None
        if how is not None and case.tp > 1:
            handed[name] = _own_slice(tensor, how, case.tp, place["tp"])
        else:
            handed[name] = tensor.detach().clone()
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
