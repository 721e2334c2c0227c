"""Chapter 2 judgements: each collective's result against the driver's reference, and its
communication pattern (ring neighbours, message counts, rounds, bytes) from the trace.

Every traffic check bounds from both sides: at most what the algorithm sends, and at least what
the other ranks cannot do without (a rank that computed its result from data it should not
have, sending nothing, fails). Messages are counted by the ones that carry data: sending an
empty message when there is nothing to send, or skipping it, are both right.

Every function takes the run (what came back from the workers) and the case, and fails with a
teaching message naming the rank and the example.
"""

from __future__ import annotations

import torch

from graders.chapters.ch2 import reference
from graders.chapters.ch2.cases import AllToAllCase, CollectiveCase
from graders.chapters.ch2.reference_traffic import MEASURED
from graders.checks import assert_number_close, assert_tensor_equal, assert_unchanged, fail
from graders.comm.assertions import (
    assert_bytes_received_at_least,
    assert_bytes_sent_at_least,
    assert_bytes_sent_at_most,
    assert_bytes_sent_per_dst_at_least,
    assert_no_self_messages,
    assert_ring_neighbours_only,
    assert_rounds_at_most,
    assert_send_count,
    assert_total_messages,
)
from graders.comm.trace import ceil_log2

TREE_HINT = (
    "in a binomial tree the set of ranks holding the data doubles every round: "
    "round k pairs rank r with rank r + 2^k (relative to the root)."
)
RING_HINT = "each of the world - 1 steps moves one chunk one hop to the right."
#: bytes per peer for shapes, beyond the payload itself
METADATA_ALLOWANCE = 128
REMAINDER_HINT = (
    "here numel = {numel} is not divisible by the group size {n}: torch.tensor_split(flat, {n}) gives "
    "the first {extra} chunk(s) one element more ({sizes}); index chunks by their real offsets, "
    "not by rank * (numel // world)."
)


def chunked_hint(case: CollectiveCase, generic: str) -> str:
    """The hint for a collective that cuts the flat tensor into one chunk per rank: the remainder
    hint when this case's chunks are uneven (that is then the likely bug), else ``generic``."""
    numel, n = case.numel, case.n
    if numel == 0 or numel % n == 0:
        return generic
    sizes = ", ".join(str(len(c)) for c in torch.tensor_split(torch.empty(numel), n))
    return REMAINDER_HINT.format(numel=numel, n=n, extra=numel % n, sizes=sizes)


def _returned_none(run, case: CollectiveCase, name: str) -> None:
    for rank in case.ranks:
        if run[rank]["returned"] is not None:
            fail(f"{name} works in place and returns None; rank {rank} returned something else.", case)


def _inputs_unchanged(run, case: CollectiveCase) -> None:
    for i, rank in enumerate(case.ranks):
        assert_unchanged(case.inputs[i], run[rank]["input_after"], what=f"rank {rank}'s input", case=case)


# -- ring shift ---------------------------------------------------------------------------------


def assert_ring_shift(run, case: CollectiveCase) -> None:
    expected = reference.ring_shift(case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["returned"],
            expected[i],
            what=f"rank {rank}'s result",
            case=case,
            hint="rank r returns what its left neighbour (r - 1) % world sent.",
        )
    _inputs_unchanged(run, case)
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_per_dst_at_least(
        run.traces,
        case.ranks,
        lambda src, dst: _nbytes(case) if dst == _right_of(case, src) else 0,
        case,
        "each rank sends its whole tensor to its right neighbour.",
    )


def _nbytes(case: CollectiveCase) -> int:
    return case.numel * case.itemsize


def _right_of(case: CollectiveCase, rank: int) -> int:
    return case.ranks[(case.ranks.index(rank) + 1) % case.n]


# -- broadcast / reduce: binomial trees ------------------------------------------------------------


def assert_broadcast(run, case: CollectiveCase, *, hint: str = "") -> None:
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"], reference.broadcast(case), what=f"rank {rank}'s tensor", case=case, hint=hint
        )


def assert_broadcast_result(run, case: CollectiveCase) -> None:
    _returned_none(run, case, "broadcast")
    assert_broadcast(run, case, hint="src is a global rank; every rank ends with src's data.")


def assert_reduce(run, case: CollectiveCase, *, hint: str = "") -> None:
    assert_tensor_equal(
        run[case.root]["tensor"],
        reference.reduced(case),
        what=f"the result on dst rank {case.root}",
        case=case,
        hint=hint,
    )


def assert_reduce_result(run, case: CollectiveCase) -> None:
    _returned_none(run, case, "reduce")
    assert_reduce(run, case, hint="dst is a global rank; 'avg' divides the sum by the group size once.")


def _binomial_tree(run, case: CollectiveCase) -> None:
    """N - 1 messages with data (none when the tensor is empty) in at most ceil(log2 N) rounds."""
    with_data = case.n - 1 if case.numel else 0
    assert_total_messages(run.traces, case.ranks, with_data, case, TREE_HINT, at_most=case.n - 1)
    assert_rounds_at_most(run.traces, ceil_log2(case.n), case, TREE_HINT)


def assert_broadcast_tree(run, case: CollectiveCase) -> None:
    """A binomial tree in which every rank but src receives the whole tensor."""
    _binomial_tree(run, case)
    assert_bytes_received_at_least(
        run.traces,
        [r for r in case.ranks if r != case.root],
        _nbytes(case),
        case,
        "every rank but src receives the whole tensor once.",
    )


def assert_reduce_tree(run, case: CollectiveCase) -> None:
    """A binomial tree in which every rank but dst sends its whole partial result."""
    _binomial_tree(run, case)
    assert_bytes_sent_at_least(
        run.traces,
        [r for r in case.ranks if r != case.root],
        _nbytes(case),
        case,
        "every rank but dst sends its partial result, the whole tensor, once.",
    )


# -- ring all-gather / reduce-scatter / all-reduce ---------------------------------------------------


def assert_all_gather(run, case: CollectiveCase, *, hint: str = "") -> None:
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["returned"],
            reference.all_gather(case),
            what=f"rank {rank}'s result",
            case=case,
            hint=hint,
        )


def assert_all_gather_result(run, case: CollectiveCase) -> None:
    assert_all_gather(run, case, hint="block j of the result is group rank j's tensor.")
    _inputs_unchanged(run, case)


def assert_all_gather_ring(run, case: CollectiveCase) -> None:
    assert_all_gather(run, case)
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    steps = case.n - 1
    assert_send_count(run.traces, case.ranks, steps if case.numel else 0, case, RING_HINT, at_most=steps)
    assert_bytes_sent_at_most(run.traces, case.ranks, steps * _nbytes(case), case, RING_HINT)
    assert_bytes_sent_at_least(run.traces, case.ranks, steps * _nbytes(case), case, RING_HINT)


def assert_reduce_scatter(run, case: CollectiveCase, *, hint: str = "") -> None:
    expected = reference.reduce_scatter(case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["returned"], expected[i], what=f"rank {rank}'s chunk", case=case, hint=hint
        )


def assert_reduce_scatter_result(run, case: CollectiveCase) -> None:
    assert_reduce_scatter(run, case, hint=chunked_hint(case, REDUCE_SCATTER_HINT))
    _inputs_unchanged(run, case)


REDUCE_SCATTER_HINT = (
    "rank r returns chunk r of torch.tensor_split(flat, world): chunks can be uneven or empty."
)
ALL_REDUCE_HINT = (
    "reduce-scatter leaves each rank one finished chunk; the all-gather phase "
    "must then pass every finished chunk around the ring."
)


def assert_reduce_scatter_ring(run, case: CollectiveCase) -> None:
    assert_reduce_scatter(run, case, hint=chunked_hint(case, ""))
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_at_most(
        run.traces,
        case.ranks,
        reference.reduce_scatter_bytes(case),
        case,
        "send one chunk per step, never the whole tensor.",
    )
    assert_bytes_sent_at_least(
        run.traces,
        case.ranks,
        lambda rank: reference.reduce_scatter_bytes_at_least(case, case.ranks.index(rank)),
        case,
        "every chunk but your own carries your share of the sum to its owner: pass each one on.",
    )


def assert_all_reduce(run, case: CollectiveCase, *, hint: str = "") -> None:
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"], reference.reduced(case), what=f"rank {rank}'s tensor", case=case, hint=hint
        )


def assert_all_reduce_result(run, case: CollectiveCase) -> None:
    _returned_none(run, case, "ring_all_reduce")
    assert_all_reduce(run, case, hint=chunked_hint(case, ALL_REDUCE_HINT))


def assert_all_reduce_ring(run, case: CollectiveCase, *, hint: str = "") -> None:
    assert_all_reduce(run, case, hint=chunked_hint(case, ""))
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_at_most(
        run.traces,
        case.ranks,
        reference.all_reduce_bytes(case),
        case,
        hint or "a ring all-reduce sends 2(N-1)/N of the tensor per rank: one chunk per step.",
    )
    assert_bytes_sent_at_least(
        run.traces,
        case.ranks,
        reference.all_reduce_bytes_at_least(case),
        case,
        "both phases pass a chunk to the right in each of their N - 1 steps.",
    )


# -- all-to-all ---------------------------------------------------------------------------------


def assert_all_to_all(run, case: AllToAllCase, *, hint: str = "") -> None:
    expected = reference.all_to_all(case)
    for i, rank in enumerate(case.ranks):
        returned = run[rank]["returned"]
        if not isinstance(returned, list) or len(returned) != case.n:
            fail(f"rank {rank}: expected a list of {case.n} tensors, got {type(returned).__name__}.", case)
        for j in range(case.n):
            assert_tensor_equal(
                returned[j], expected[i][j], what=f"rank {rank}'s out[{j}]", case=case, hint=hint
            )


def assert_all_to_all_result(run, case: AllToAllCase) -> None:
    assert_all_to_all(
        run,
        case,
        hint="out[j] is what rank j passed as inputs[rank]; its shape is only known to rank j, so send "
        "shapes first.",
    )
    for i, rank in enumerate(case.ranks):
        for j in range(case.n):
            assert_unchanged(
                case.inputs[i][j], run[rank]["inputs_after"][j], what=f"rank {rank}'s inputs[{j}]", case=case
            )


def assert_all_to_all_traffic(run, case: AllToAllCase) -> None:
    assert_all_to_all(run, case)
    assert_no_self_messages(run.traces, case.ranks, case)

    def bound(rank):
        i = case.ranks.index(rank)
        payload = sum(t.numel() * t.element_size() for j, t in enumerate(case.inputs[i]) if j != i)
        return payload + METADATA_ALLOWANCE * (case.n - 1)

    assert_bytes_sent_at_most(
        run.traces, case.ranks, bound, case, "each block travels once, straight to its destination."
    )

    def block(src, dst):
        t = case.inputs[case.ranks.index(src)][case.ranks.index(dst)]
        return t.numel() * t.element_size()

    assert_bytes_sent_per_dst_at_least(
        run.traces, case.ranks, block, case, "send every block straight to the rank it is for."
    )


# -- cost model ---------------------------------------------------------------------------------


def assert_bytes_sent_formula(got, case) -> None:
    want = reference.bytes_sent_per_rank(case.collective, case.nbytes, case.n, case.algorithm)
    assert_number_close(
        got,
        want,
        "bytes sent by the busiest rank",
        case,
        "ring: every rank sends N-1 chunks of nbytes/N per phase; tree: the root forwards the "
        "whole buffer once per round.",
    )


def assert_refuses(got: dict, case, function: str) -> None:
    """An unsupported (collective, algorithm) pair raises ValueError, as the module docstring says."""
    if got["raised"] != "ValueError":
        fail(
            f"{function}({case.collective!r}, ..., algorithm={case.algorithm!r}) returned "
            f"{got['returned']!r}; the model has no {case.algorithm!r} algorithm for "
            f"{case.collective!r}, so it must raise ValueError.",
            case,
            "ring: all_reduce, all_gather, reduce_scatter, all_to_all; tree: broadcast, reduce, "
            "all_reduce. Check the pair before computing anything.",
        )


def assert_alpha_beta_formula(got, case) -> None:
    want = reference.alpha_beta_time(
        case.collective, case.nbytes, case.n, case.alpha, case.beta, case.algorithm
    )
    assert_number_close(
        got,
        want,
        "modelled time (s)",
        case,
        "count the messages on the critical path (alpha each) and the bytes on the busiest link (beta each).",
    )


def assert_bus_bandwidth_formula(got, case) -> None:
    want = reference.bus_bandwidth(case.collective, case.nbytes, case.n, case.seconds)
    assert_number_close(
        got,
        want,
        "bus bandwidth (B/s)",
        case,
        "busbw = nbytes / seconds times 2(N-1)/N for all_reduce, (N-1)/N for all_gather, "
        "reduce_scatter and all_to_all, 1 for broadcast and reduce.",
    )


def assert_measured_bytes(got, case) -> None:
    measured = max(MEASURED[(case.collective, case.n, case.numel)])
    assert_number_close(
        got,
        float(measured),
        f"your model's bytes for {case.collective} vs. what the kit's reference {case.collective} sent",
        case,
        "the model should predict exactly what the busiest rank of the ring and tree algorithms sends.",
    )
