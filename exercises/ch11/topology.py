# Generated from solutions/ch11/topology.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 11: the rank grid of 5D parallelism, and the groups of every dimension.

A job of ``tp · cp · ep · dp · pp`` processes is a five-dimensional grid: each rank has one
coordinate per dimension (tensor, context, expert, data and pipeline parallelism). ``order``
names the dimensions from the **fastest-varying** (innermost) to the slowest, as Megatron-Core's
``RankGenerator`` does: with the default ``"tp-cp-ep-dp-pp"``, ranks ``0, 1, …, tp − 1`` differ
only in their tp coordinate, the next tp ranks have cp coordinate 1, and so on. So

    rank = tp_i + tp · (cp_i + cp · (ep_i + ep · (dp_i + dp · pp_i)))

for that order (another order nests the same way, in its own sequence). For tp = dp = pp = 2:
the tp groups are ``[0, 1], [2, 3], [4, 5], [6, 7]``, the dp groups ``[0, 2], [1, 3], [4, 6],
[5, 7]``, the pp groups ``[0, 4], [1, 5], [2, 6], [3, 7]``.

A **group** of some dimensions (``"tp"``, or several joined by ``-``: ``"tp-pp"``, ``"dp-cp"``)
is a set of ranks that share every *other* coordinate: it varies along exactly those dimensions.
:meth:`RankLayout.groups` lists all groups of a set of dimensions, each group's ranks in
increasing order and the groups in increasing order of their first rank (that is how
``RankGenerator.get_ranks`` lists them). The groups of any dimensions partition the ranks.
"""

from dataclasses import dataclass

DIMS = ("tp", "cp", "ep", "dp", "pp")


@dataclass(frozen=True)
class RankLayout:
    tp: int = 1
    cp: int = 1
    ep: int = 1
    dp: int = 1
    pp: int = 1
    order: str = "tp-cp-ep-dp-pp"

    def __post_init__(self) -> None:
        names = self.order.split("-")
        if sorted(names) != sorted(DIMS):
            raise ValueError(f"order {self.order!r} must name each of {', '.join(DIMS)} once")
        for dim in DIMS:
            size = getattr(self, dim)
            if not isinstance(size, int) or size < 1:
                raise ValueError(f"{dim} must be a positive int, not {size!r}")

    @property
    def world_size(self) -> int:
        return self.tp * self.cp * self.ep * self.dp * self.pp

    @property
    def sizes(self) -> dict[str, int]:
        """The size of each dimension, fastest-varying first."""
        return {dim: getattr(self, dim) for dim in self.order.split("-")}

    def coords(self, rank: int) -> dict[str, int]:
        """The coordinate of ``rank`` along each dimension (``ValueError`` outside the grid)."""
        raise NotImplementedError("[dtlab TODO] ch11/topology.py: implement RankLayout.coords")

    def rank(self, **coords: int) -> int:
        """The rank at ``coords`` (a coordinate per dimension; one not given is 0)."""
        raise NotImplementedError("[dtlab TODO] ch11/topology.py: implement RankLayout.rank")

    def groups(self, dims: str) -> list[list[int]]:
        """Every group of the dimensions ``dims`` (``"tp"``, ``"tp-pp"``, …), as sorted rank lists,
        sorted by their first rank."""
        raise NotImplementedError("[dtlab TODO] ch11/topology.py: implement RankLayout.groups")

    def group_of(self, rank: int, dims: str) -> list[int]:
        """The group of ``dims`` that holds ``rank``."""
        raise NotImplementedError("[dtlab TODO] ch11/topology.py: implement RankLayout.group_of")
