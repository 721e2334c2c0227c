# Generated from solutions/ch9/lc_cost.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 9: what long-sequence attention costs, per rank and per layer, for one sequence.

``score_bytes(method, seq, heads, world=1, block_size=None, bytes_per_element=2)``: the bytes of
the largest score tensor one rank holds at once (the memory that grows as s²):

* ``"full"``: every head's ``seq × seq`` scores on one device;
* ``"blockwise"``: one block of keys at a time, ``seq × block_size`` per head;
* ``"ring"``: the rank's ``seq/world`` queries against one arriving block of ``seq/world`` keys;
* ``"ulysses"``: the whole sequence, for the rank's ``heads/world`` heads.

``ring_comm_bytes`` / ``ulysses_comm_bytes(seq, heads, head_dim, world, bytes_per_element=2,
backward=True)``: the bytes one rank sends to other ranks for one attention layer, forward and
(with ``backward``) backward. A block is one rank's chunk of k (or v, q, the output):
``seq/world · heads · head_dim`` elements.

* Ring: forward passes k and v ``world - 1`` times; backward passes them ``world - 1`` times
  again, and dk and dv ``world`` times (they travel with their blocks and one last pass brings
  them home).
* Ulysses: forward is an all-to-all of q, k and v and one of the output, backward the same two.
  An all-to-all keeps ``1/world`` of what it is handed (the part this rank keeps for itself).

``ValueError`` for an unknown method, a sequence the ranks do not divide, or (Ulysses) heads
they do not divide.
"""


def score_bytes(
    method: str,
    seq: int,
    heads: int,
    world: int = 1,
    block_size: int | None = None,
    bytes_per_element: int = 2,
) -> int:
    raise NotImplementedError("[dtlab TODO] ch9/lc_cost.py: implement score_bytes")


def ring_comm_bytes(
    seq: int, heads: int, head_dim: int, world: int, bytes_per_element: int = 2, backward: bool = True
) -> int:
    raise NotImplementedError("[dtlab TODO] ch9/lc_cost.py: implement ring_comm_bytes")


def ulysses_comm_bytes(
    seq: int, heads: int, head_dim: int, world: int, bytes_per_element: int = 2, backward: bool = True
) -> int:
    raise NotImplementedError("[dtlab TODO] ch9/lc_cost.py: implement ulysses_comm_bytes")
