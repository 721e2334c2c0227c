# Generated from solutions/ch11/placement.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 11: mapping the rank grid onto machines.

A cluster has nodes of ``gpus_per_node`` GPUs; rank ``r`` runs on node ``r // gpus_per_node``
(torchrun numbers the ranks node by node). Links inside a node (NVLink) are an order of
magnitude faster than between nodes (InfiniBand), so a group that spans nodes pays for it: tensor
parallelism, which communicates inside every layer, must stay inside a node wherever it can, then
context, expert, data and pipeline parallelism, in that order of traffic.

``groups_crossing_nodes(layout, gpus_per_node)``: for each dimension of the layout (``"tp"``,
``"cp"``, ``"ep"``, ``"dp"``, ``"pp"``), the groups of that dimension whose ranks live on more
than one node, as ``layout.groups`` lists them (an empty list when none crosses).

``best_order(tp, cp, ep, dp, pp, gpus_per_node)``: an ``order`` for :class:`RankLayout` under which
as few groups cross nodes as possible, the busiest dimension first: among all orders, the one
whose numbers of crossing groups, read as ``(tp, cp, ep, dp, pp)``, are smallest in dictionary
order. Several orders often tie: any of them is right.
"""

from itertools import permutations

from .topology import DIMS, RankLayout


def groups_crossing_nodes(layout: RankLayout, gpus_per_node: int) -> dict[str, list[list[int]]]:
    raise NotImplementedError("[dtlab TODO] ch11/placement.py: implement groups_crossing_nodes")


def best_order(tp: int, cp: int, ep: int, dp: int, pp: int, gpus_per_node: int) -> str:
    raise NotImplementedError("[dtlab TODO] ch11/placement.py: implement best_order")
