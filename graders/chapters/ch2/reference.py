"""Chapter 2 references, computed in the driver from the case's inputs (never by student code)."""

from __future__ import annotations

import math

import torch

from graders.chapters.ch2.cases import AllToAllCase, CollectiveCase


def reduced(case: CollectiveCase) -> torch.Tensor:
    """The elementwise reduction of every group rank's input with ``case.op``."""
    stacked = torch.stack(case.inputs)
    if case.op in ("sum", "avg"):
        if stacked.is_floating_point():
            total = stacked.double().sum(dim=0)
            return (total / case.n if case.op == "avg" else total).to(stacked.dtype)
        return stacked.sum(dim=0)
    if case.op == "max":
        return stacked.amax(dim=0)
    return stacked.amin(dim=0)


def ring_shift(case: CollectiveCase) -> list[torch.Tensor]:
    """Per group rank: the input of its left neighbour."""
    return [case.inputs[(i - 1) % case.n] for i in range(case.n)]


def broadcast(case: CollectiveCase) -> torch.Tensor:
    return case.inputs[case.ranks.index(case.root)]


def all_gather(case: CollectiveCase) -> torch.Tensor:
    return torch.cat(case.inputs, dim=0)


def reduce_scatter(case: CollectiveCase) -> list[torch.Tensor]:
    return [chunk.clone() for chunk in torch.tensor_split(reduced(case).flatten(), case.n)]


def all_to_all(case: AllToAllCase) -> list[list[torch.Tensor]]:
    """``out[i][j]`` = what group rank j sent to group rank i."""
    return [[case.inputs[j][i] for j in range(case.n)] for i in range(case.n)]


# -- bounds ------------------------------------------------------------------------------------


def chunk_elements(case: CollectiveCase) -> int:
    return math.ceil(case.numel / case.n)


def reduce_scatter_bytes(case: CollectiveCase) -> int:
    return (case.n - 1) * chunk_elements(case) * case.itemsize


def all_reduce_bytes(case: CollectiveCase) -> int:
    return 2 * reduce_scatter_bytes(case)


def reduce_scatter_bytes_at_least(case: CollectiveCase, group_rank: int) -> int:
    """What group rank r must send in a ring reduce-scatter: its share of every chunk it does
    not own (only the ring leads from it to their owners), i.e. all but chunk r."""
    own = len(torch.tensor_split(torch.empty(case.numel), case.n)[group_rank])
    return (case.numel - own) * case.itemsize


def all_reduce_bytes_at_least(case: CollectiveCase) -> int:
    """What any rank of a ring all-reduce must send, whichever chunk it finishes: all but its
    own in the reduce-scatter phase, all but its right neighbour's in the all-gather phase."""
    return 2 * (case.numel - chunk_elements(case)) * case.itemsize


# -- cost model --------------------------------------------------------------------------------
# Per collective: (messages on the critical path, share of nbytes on the busiest link) as
# functions of N, for each algorithm. The formulas are documented in exercises/ch2/README.md.


def _log2(n: int) -> int:
    return math.ceil(math.log2(n)) if n > 1 else 0


COST_TABLE = {
    ("all_reduce", "ring"): (lambda n: 2 * (n - 1), lambda n: 2 * (n - 1) / n),
    ("all_gather", "ring"): (lambda n: n - 1, lambda n: (n - 1) / n),
    ("reduce_scatter", "ring"): (lambda n: n - 1, lambda n: (n - 1) / n),
    ("all_to_all", "ring"): (lambda n: n - 1, lambda n: (n - 1) / n),
    ("broadcast", "tree"): (lambda n: _log2(n), lambda n: _log2(n)),
    ("reduce", "tree"): (lambda n: _log2(n), lambda n: 1.0 if n > 1 else 0.0),
    ("all_reduce", "tree"): (lambda n: 2 * _log2(n), lambda n: _log2(n)),
}

BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}


def bytes_sent_per_rank(collective: str, nbytes: float, n: int, algorithm: str) -> float:
    return COST_TABLE[(collective, algorithm)][1](n) * nbytes


def alpha_beta_time(
    collective: str, nbytes: float, n: int, alpha: float, beta: float, algorithm: str
) -> float:
    messages, _ = COST_TABLE[(collective, algorithm)]
    if algorithm == "tree":
        # every tree round moves the whole buffer: rounds * (alpha + nbytes * beta)
        return messages(n) * (alpha + nbytes * beta)
    return messages(n) * alpha + bytes_sent_per_rank(collective, nbytes, n, algorithm) * beta


def bus_bandwidth(collective: str, nbytes: float, n: int, seconds: float) -> float:
    return nbytes / seconds * BUS_FACTOR[collective](n)
