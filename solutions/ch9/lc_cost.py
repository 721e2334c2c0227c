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

### BEGIN SOLUTION


def _split(total: int, parts: int, what: str) -> int:
    if total % parts:
        raise ValueError(f"{what} of {total} cannot be split over {parts} ranks")
    return total // parts


### END SOLUTION


def score_bytes(
    method: str,
    seq: int,
    heads: int,
    world: int = 1,
    block_size: int | None = None,
    bytes_per_element: int = 2,
) -> int:
    ### BEGIN SOLUTION
    if method == "full":
        elements = heads * seq * seq
    elif method == "blockwise":
        elements = heads * seq * min(block_size, seq)
    elif method == "ring":
        chunk = _split(seq, world, "a sequence")
        elements = heads * chunk * chunk
    elif method == "ulysses":
        _split(seq, world, "a sequence")
        elements = _split(heads, world, "heads") * seq * seq
    else:
        raise ValueError(f"unknown method {method!r}: full, blockwise, ring or ulysses")
    return elements * bytes_per_element
    ### END SOLUTION


def ring_comm_bytes(
    seq: int, heads: int, head_dim: int, world: int, bytes_per_element: int = 2, backward: bool = True
) -> int:
    ### BEGIN SOLUTION
    block = _split(seq, world, "a sequence") * heads * head_dim * bytes_per_element
    if world == 1:
        return 0
    forward = 2 * (world - 1) * block
    return forward + (2 * (world - 1) + 2 * world) * block if backward else forward
    ### END SOLUTION


def ulysses_comm_bytes(
    seq: int, heads: int, head_dim: int, world: int, bytes_per_element: int = 2, backward: bool = True
) -> int:
    ### BEGIN SOLUTION
    block = _split(seq, world, "a sequence") * heads * head_dim * bytes_per_element
    _split(heads, world, "heads")
    leaving = block * (world - 1) // world  # of one block handed to an all-to-all
    forward = 3 * leaving + leaving
    return 2 * forward if backward else forward
    ### END SOLUTION
