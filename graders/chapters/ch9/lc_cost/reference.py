"""The kit's cost model of long-sequence attention (``lc_cost.py``), and the traffic measured
from the kit's own Ring Attention and Ulysses.

Formulas, per rank, per layer, for one sequence (``c = seq / world`` positions per rank, a
*block* = ``c · heads · head_dim`` elements):

* largest score tensor: full ``h·s²``, blockwise ``h·s·min(b, s)``, ring ``h·c²``, Ulysses
  ``(h/P)·s²``;
* Ring sends ``2(P-1)`` blocks forward (k and v, ``P-1`` passes) and ``2(P-1) + 2P`` backward
  (k and v again, and dk, dv, which come home with one pass more); nothing on one rank;
* Ulysses hands ``3 + 1`` blocks to its two all-to-alls forward and as many backward, of which
  ``(P-1)/P`` leaves the rank.

:data:`MEASURED` holds what the kit's reference implementations sent when they ran on real gloo
worlds (``tests/chapters/test_ch9_costs.py`` runs them again and keeps the table true): the bytes each
rank put on the wire for one layer, forward only and forward plus backward.
"""

from __future__ import annotations

from typing import NamedTuple


class Measured(NamedTuple):
    method: str  # "ring" or "ulysses"
    seq: int
    heads: int
    head_dim: int
    world: int
    bytes_per_element: int
    forward: int  # bytes one rank sent to the others, forward
    training: int  # forward and backward


def score_elements_per_head(method: str, seq: int, world: int, block_size: int | None) -> int:
    if method == "blockwise":
        return seq * min(seq, block_size)
    if method == "ring":
        return (seq // world) ** 2
    return seq * seq  # full, and Ulysses on its own heads


def score_bytes(method, seq, heads, world=1, block_size=None, bytes_per_element=2) -> int:
    heads_here = heads // world if method == "ulysses" else heads
    return score_elements_per_head(method, seq, world, block_size) * heads_here * bytes_per_element


def block_bytes(seq, heads, head_dim, world, bytes_per_element) -> int:
    return seq // world * heads * head_dim * bytes_per_element


def ring_comm_bytes(seq, heads, head_dim, world, bytes_per_element=2, backward=True) -> int:
    passes_forward = 2 * (world - 1)
    passes_backward = 4 * world - 2 if world > 1 else 0
    blocks = passes_forward + (passes_backward if backward else 0)
    return blocks * block_bytes(seq, heads, head_dim, world, bytes_per_element)


def ulysses_comm_bytes(seq, heads, head_dim, world, bytes_per_element=2, backward=True) -> int:
    handed = (8 if backward else 4) * block_bytes(seq, heads, head_dim, world, bytes_per_element)
    return handed // world * (world - 1)


def invalid(method: str, seq: int, heads: int, world: int) -> bool:
    """Whether the inputs cannot be split: the functions must raise ValueError."""
    if method not in ("full", "blockwise", "ring", "ulysses"):
        return True
    if method in ("ring", "ulysses") and seq % world:
        return True
    return method == "ulysses" and heads % world != 0


#: Wire bytes per rank measured from the kit's Ring Attention and Ulysses (tests/chapters/test_ch9_costs.py).
MEASURED: list[Measured] = [
    Measured("ring", 2, 2, 3, 1, 4, 0, 0),
    Measured("ring", 4, 1, 2, 2, 4, 32, 128),
    Measured("ring", 6, 2, 2, 3, 8, 256, 896),
    Measured("ring", 8, 3, 1, 4, 4, 144, 480),
    Measured("ring", 12, 1, 4, 4, 8, 576, 1920),
    Measured("ulysses", 2, 2, 3, 1, 4, 0, 0),
    Measured("ulysses", 4, 2, 2, 2, 4, 64, 128),
    Measured("ulysses", 6, 3, 2, 3, 8, 256, 512),
    Measured("ulysses", 8, 4, 1, 4, 4, 96, 192),
    Measured("ulysses", 12, 8, 2, 4, 8, 1152, 2304),
]
