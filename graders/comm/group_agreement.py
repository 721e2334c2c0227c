"""``new_group`` is collective: a graded call first checks that every rank asks for the same group.

torch names a group made without ``use_local_synchronization`` by a counter, and its backend
finds its peers under that name in the store. When ranks ask for different groups at the same
call (each rank makes only its own), two groups share one name: which peers connect then is a
race, and the outcome is sometimes a hang, sometimes an all-reduce that mixes the wrong ranks.
The kit asks every rank of the world what it is about to make, before torch does, so that this
mistake gets the same clear verdict every run.

A group made with ``use_local_synchronization=True`` is only made by its members (torch's
documented exception) and is not checked. torch names such a group from its ranks and the number
of groups the process holds; :func:`named_as_if_alone` keeps the kit's own groups out of that
count, which differs from rank to rank in a persistent world.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable

import torch.distributed as dist

from graders.infra import torch_compat

#: read before the recorder swaps the function's code for its trampoline
_NEW_GROUP = inspect.signature(dist.new_group)


class GroupMismatchError(RuntimeError):
    """Raised on every rank when the ranks of one ``new_group`` call ask for different groups."""


def requested_ranks(args: tuple, kwargs: dict) -> list[int] | None:
    """The sorted ranks a ``new_group(...)`` call asks for, or ``None`` when it needs no check."""
    bound = _NEW_GROUP.bind(*args, **kwargs)
    if bound.arguments.get("use_local_synchronization"):
        return None
    ranks = bound.arguments.get("ranks")
    if ranks is None:
        return list(range(dist.get_world_size()))
    asked = [int(rank) for rank in ranks]
    return sorted(asked) if bound.arguments.get("sort_ranks", True) else asked


def check_same_group_everywhere(asked: list[int], all_gather_object: Callable) -> None:
    """Gather what every rank asks for (over the default group); raise if they differ."""
    everyone: list = [None] * dist.get_world_size()
    all_gather_object(everyone, asked)
    if all(other == asked for other in everyone):
        return
    me = dist.get_rank()
    other = next(rank for rank, theirs in enumerate(everyone) if theirs != everyone[0])
    raise GroupMismatchError(
        f"new_group is collective: every rank must call it for every group, with the same ranks "
        f"and in the same order (or pass use_local_synchronization=True); at this call rank 0 "
        f"asked for {everyone[0]} while rank {other} asked for {everyone[other]} "
        f"(this is rank {me})"
    )


def local_synchronization(args: tuple, kwargs: dict) -> bool:
    """Whether a ``new_group(...)`` call asks for ``use_local_synchronization``."""
    return bool(_NEW_GROUP.bind(*args, **kwargs).arguments.get("use_local_synchronization"))


def named_as_if_alone(graded_groups: list):
    """While graded code makes a group with ``use_local_synchronization=True``, torch names it as
    in a program of its own. torch salts the hash of the ranks with a count the members agree on
    only in a program of its own (2.13: the groups the process holds; 2.14 and 2.15: the groups
    made so far); in the kit's world a rank also holds, and made, the groups earlier tasks asked
    the kit for, and only their members did, so the members would compute different names and
    wait for each other forever. The count is therefore the default group and the groups graded
    code made and still holds."""

    def hashed(ranks: list[int]) -> str:
        held = 1 + sum(1 for group in graded_groups if torch_compat.holds_group(group))
        unique = "_".join(["_".join(map(str, ranks)), str(held)])
        return hashlib.sha1(bytes(unique, "utf-8"), usedforsecurity=False).hexdigest()

    return torch_compat.group_names_hashed_by(hashed)
