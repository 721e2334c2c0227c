"""Chapter 11: the process groups of a rank layout, made for real.

``build_groups(layout, dims=("tp", "cp", "ep", "dp", "pp"))`` runs on **every** rank of a world of
``layout.world_size`` processes, after ``init_process_group``. For each entry of ``dims`` (one
dimension, ``"tp"``, or several, ``"dp-cp"``) it makes the process groups of that entry with
``torch.distributed.new_group`` and returns, by entry, the group that holds the calling rank.

``new_group`` is collective: every rank must call it for **every** group, its own or not, in the
same order on all ranks (a rank that skips the groups it is not in leaves the others waiting).
So each rank walks ``layout.groups(entry)`` for every entry, in the order of ``dims``, creates
each group, and keeps the one it belongs to. Use your ``RankLayout`` (``topology.py``).
(``new_group(ranks, use_local_synchronization=True)`` is the exception torch offers: a group whose
creation only its members wait for, which the ranks outside it may skip. Both ways are accepted.)
"""

import torch.distributed as dist

from .topology import DIMS, RankLayout


def build_groups(layout: RankLayout, dims=DIMS) -> dict:
    ### BEGIN SOLUTION
    rank = dist.get_rank()
    mine = {}
    for entry in dims:
        for ranks in layout.groups(entry):
            group = dist.new_group(ranks)
            if rank in ranks:
                mine[entry] = group
    return mine
    ### END SOLUTION
