"""Chapter 2: a cost model for collectives.

Definitions used throughout (they match the functions in ``collectives.py``):

* ``nbytes`` is the size of the **full** buffer: the tensor being all-reduced, broadcast or
  reduced; the gathered output of an all-gather; the input of a reduce-scatter; one rank's
  whole input list of an all-to-all.
* ``world`` is the number of ranks N. With N = 1 nothing is sent and everything is free.
* ``algorithm="ring"`` is defined for all_reduce, all_gather, reduce_scatter and all_to_all
  (pairwise exchange); ``algorithm="tree"`` (binomial tree) for broadcast, reduce and
  all_reduce (reduce then broadcast). Any other combination raises ``ValueError``.
* Collective names: ``"all_reduce"``, ``"all_gather"``, ``"reduce_scatter"``,
  ``"all_to_all"``, ``"broadcast"``, ``"reduce"``.
"""

import math

RING = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}
TREE = {"broadcast", "reduce", "all_reduce"}


def _check(collective: str, algorithm: str) -> None:
    supported = RING if algorithm == "ring" else TREE if algorithm == "tree" else set()
    if collective not in supported:
        raise ValueError(f"{collective!r} has no {algorithm!r} algorithm in this model")


def bytes_sent_per_rank(collective: str, nbytes: float, world: int, algorithm: str = "ring") -> float:
    """Bytes sent by the busiest rank, for the algorithms of ``collectives.py``.

    ring: the ring algorithms (for all_to_all: the pairwise exchange, shapes not counted).
    tree: the binomial trees; a tree all_reduce is a tree reduce followed by a tree broadcast,
    and its busiest rank is the one that sends the most over both phases.
    """
    _check(collective, algorithm)
    ### BEGIN SOLUTION
    if world == 1:
        return 0.0
    if algorithm == "ring":
        share = (world - 1) / world * nbytes
        return 2 * share if collective == "all_reduce" else share
    if collective == "reduce":
        return float(nbytes)
    return math.ceil(math.log2(world)) * nbytes
    ### END SOLUTION


def alpha_beta_time(
    collective: str, nbytes: float, world: int, alpha: float, beta: float, algorithm: str = "ring"
) -> float:
    """Time in the alpha-beta model: a message of ``size`` bytes costs ``alpha + size * beta`` s.

    Steps run one after another; within a ring step every rank sends one chunk at once, so a
    step costs one chunk's message. A tree round moves the whole buffer one level.
    """
    _check(collective, algorithm)
    ### BEGIN SOLUTION
    if world == 1:
        return 0.0
    if algorithm == "ring":
        steps = 2 * (world - 1) if collective == "all_reduce" else world - 1
        return steps * alpha + steps / world * nbytes * beta
    rounds = math.ceil(math.log2(world))
    one_tree = rounds * (alpha + nbytes * beta)
    return 2 * one_tree if collective == "all_reduce" else one_tree
    ### END SOLUTION


def bus_bandwidth(collective: str, nbytes: float, world: int, seconds: float) -> float:
    """Bus bandwidth in bytes per second, following the nccl-tests convention (PERFORMANCE.md).

    The algorithm bandwidth ``nbytes / seconds`` scaled by the collective's bus factor, which
    makes the number comparable with the link speed whatever the world size.
    """
    ### BEGIN SOLUTION
    algbw = nbytes / seconds
    if collective == "all_reduce":
        return algbw * 2 * (world - 1) / world
    if collective in ("all_gather", "reduce_scatter", "all_to_all"):
        return algbw * (world - 1) / world
    if collective in ("broadcast", "reduce"):
        return algbw
    raise ValueError(f"unknown collective {collective!r}")
    ### END SOLUTION
