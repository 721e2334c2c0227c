"""Chapter 10: the process groups of expert parallelism combined with data parallelism.

``world = ep · dp`` ranks are laid out expert-parallel fastest: rank ``g = d·ep + e`` is
data-parallel replica ``d`` of expert shard ``e``.

* The **expert-parallel** groups are the ``dp`` blocks of ``ep`` consecutive ranks: each holds
  every expert once, and the all-to-alls run inside it (given below).
* The **expert-data-parallel** groups are the ``ep`` strided sets ``{e, e+ep, e+2·ep, …}``: the
  ranks that hold the same experts.

Both return lists of rank lists, each sorted, in order of their smallest rank; a world that is
not ``ep × dp`` raises ``ValueError``.

Every rank trains on its own tokens, so the loss is the mean over all ``ep · dp`` ranks. The
dense parameters (the router) are replicated on every rank: their gradients are averaged over
all of them. An expert's gradient already holds what every rank of its expert-parallel group
sent it (the all-to-all's backward summed them); the ranks that hold the same expert add theirs
in the expert-data-parallel group, and the sum is divided by the same ``ep · dp``.
"""

import torch.distributed as dist
from torch import nn


def _check(world: int, ep: int, dp: int) -> None:
    if ep < 1 or dp < 1 or ep * dp != world:
        raise ValueError(f"a world of {world} ranks is not ep={ep} × dp={dp}")


def expert_parallel_ranks(world: int, ep: int, dp: int) -> list[list[int]]:
    """The ``dp`` expert-parallel groups: ``[[0, …, ep-1], [ep, …, 2·ep-1], …]``."""
    _check(world, ep, dp)
    return [list(range(d * ep, (d + 1) * ep)) for d in range(dp)]


def expert_data_parallel_ranks(world: int, ep: int, dp: int) -> list[list[int]]:
    """The ``ep`` expert-data-parallel groups."""
    ### BEGIN SOLUTION
    _check(world, ep, dp)
    return [list(range(e, world, ep)) for e in range(ep)]
    ### END SOLUTION


def all_reduce_moe_gradients(moe: nn.Module, expert_group=None, dense_group=None) -> None:
    """Average ``moe``'s gradients in place, as one data-parallel step needs them.

    ``moe.experts`` holds this rank's experts; every other parameter with a gradient is dense.
    The dense gradients are all-reduced over ``dense_group`` (every data-parallel rank), the
    experts' over ``expert_group`` only, and both are divided by the size of ``dense_group``.
    Parameters whose ``grad`` is ``None`` are skipped.
    """
    ### BEGIN SOLUTION
    world = dist.get_world_size(dense_group)
    expert_params = {id(p) for p in moe.experts.parameters()}
    for param in moe.parameters():
        if param.grad is None:
            continue
        group = expert_group if id(param) in expert_params else dense_group
        dist.all_reduce(param.grad, group=group)
        param.grad /= world
    ### END SOLUTION
