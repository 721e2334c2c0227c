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
from graders.judge.checks import assert_number_close, assert_tensor_equal, assert_unchanged, fail
from graders.words.messages import say
from graders.words.text import Text

#: bytes per peer for shapes, beyond the payload itself
METADATA_ALLOWANCE = 128


def chunked_hint(case: CollectiveCase, generic: Text | str) -> Text | str:
    """The hint for a collective that cuts the flat tensor into one chunk per rank: the remainder
    hint when this case's chunks are uneven (that is then the likely bug), else ``generic``."""
    numel, n = case.numel, case.n
    if numel == 0 or numel % n == 0:
        return generic
    sizes = ", ".join(str(len(c)) for c in torch.tensor_split(torch.empty(numel), n))
    return say("ch2:remainder:hint", numel=numel, n=n, extra=numel % n, sizes=sizes)


def _returned_none(run, case: CollectiveCase, name: str) -> None:
    for rank in case.ranks:
        if run[rank]["returned"] is not None:
            fail(say("ch2:returned something", name=name, rank=rank), case)


def _inputs_unchanged(run, case: CollectiveCase) -> None:
    for i, rank in enumerate(case.ranks):
        assert_unchanged(
            case.inputs[i], run[rank]["input_after"], what=say("ch2:input", rank=rank), case=case
        )


# -- ring shift ---------------------------------------------------------------------------------


def assert_ring_shift(run, case: CollectiveCase) -> None:
    expected = reference.ring_shift(case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["returned"],
            expected[i],
            what=say("ch2:result", rank=rank),
            case=case,
            hint=say("ch2:ring shift:hint"),
        )
    _inputs_unchanged(run, case)
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_per_dst_at_least(
        run.traces,
        case.ranks,
        lambda src, dst: _nbytes(case) if dst == _right_of(case, src) else 0,
        case,
        say("ch2:ring shift bytes:hint"),
    )


def _nbytes(case: CollectiveCase) -> int:
    return case.numel * case.itemsize


def _right_of(case: CollectiveCase, rank: int) -> int:
    return case.ranks[(case.ranks.index(rank) + 1) % case.n]


# -- broadcast / reduce: binomial trees ------------------------------------------------------------


def assert_broadcast(run, case: CollectiveCase, *, hint: str = "") -> None:
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"],
            reference.broadcast(case),
            what=say("ch2:tensor", rank=rank),
            case=case,
            hint=hint,
        )


def assert_broadcast_result(run, case: CollectiveCase) -> None:
    _returned_none(run, case, "broadcast")
    assert_broadcast(run, case, hint=say("ch2:broadcast:hint"))


def assert_reduce(run, case: CollectiveCase, *, hint: str = "") -> None:
    assert_tensor_equal(
        run[case.root]["tensor"],
        reference.reduced(case),
        what=say("ch2:on dst", rank=case.root),
        case=case,
        hint=hint,
    )


def assert_reduce_result(run, case: CollectiveCase) -> None:
    _returned_none(run, case, "reduce")
    assert_reduce(run, case, hint=say("ch2:reduce:hint"))


def _binomial_tree(run, case: CollectiveCase) -> None:
    """N - 1 messages with data (none when the tensor is empty) in at most ceil(log2 N) rounds."""
    with_data = case.n - 1 if case.numel else 0
    assert_total_messages(run.traces, case.ranks, with_data, case, say("ch2:tree:hint"), at_most=case.n - 1)
    assert_rounds_at_most(run.traces, ceil_log2(case.n), case, say("ch2:tree:hint"))


def assert_broadcast_tree(run, case: CollectiveCase) -> None:
    """A binomial tree in which every rank but src receives the whole tensor."""
    _binomial_tree(run, case)
    assert_bytes_received_at_least(
        run.traces,
        [r for r in case.ranks if r != case.root],
        _nbytes(case),
        case,
        say("ch2:broadcast bytes:hint"),
    )


def assert_reduce_tree(run, case: CollectiveCase) -> None:
    """A binomial tree in which every rank but dst sends its whole partial result."""
    _binomial_tree(run, case)
    assert_bytes_sent_at_least(
        run.traces,
        [r for r in case.ranks if r != case.root],
        _nbytes(case),
        case,
        say("ch2:reduce bytes:hint"),
    )


# -- ring all-gather / reduce-scatter / all-reduce ---------------------------------------------------


def assert_all_gather(run, case: CollectiveCase, *, hint: str = "") -> None:
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["returned"],
            reference.all_gather(case),
            what=say("ch2:result", rank=rank),
            case=case,
            hint=hint,
        )


def assert_all_gather_result(run, case: CollectiveCase) -> None:
    assert_all_gather(run, case, hint=say("ch2:all gather:hint"))
    _inputs_unchanged(run, case)


def assert_all_gather_ring(run, case: CollectiveCase) -> None:
    assert_all_gather(run, case)
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    steps, hint = case.n - 1, say("ch2:ring:hint")
    assert_send_count(run.traces, case.ranks, steps if case.numel else 0, case, hint, at_most=steps)
    assert_bytes_sent_at_most(run.traces, case.ranks, steps * _nbytes(case), case, hint)
    assert_bytes_sent_at_least(run.traces, case.ranks, steps * _nbytes(case), case, hint)


def assert_reduce_scatter(run, case: CollectiveCase, *, hint: str = "") -> None:
    expected = reference.reduce_scatter(case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["returned"], expected[i], what=say("ch2:chunk", rank=rank), case=case, hint=hint
        )


def assert_reduce_scatter_result(run, case: CollectiveCase) -> None:
    assert_reduce_scatter(run, case, hint=chunked_hint(case, say("ch2:reduce scatter:hint")))
    _inputs_unchanged(run, case)


def assert_reduce_scatter_ring(run, case: CollectiveCase) -> None:
    assert_reduce_scatter(run, case, hint=chunked_hint(case, ""))
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_at_most(
        run.traces,
        case.ranks,
        reference.reduce_scatter_bytes(case),
        case,
        say("ch2:reduce scatter at most:hint"),
    )
    assert_bytes_sent_at_least(
        run.traces,
        case.ranks,
        lambda rank: reference.reduce_scatter_bytes_at_least(case, case.ranks.index(rank)),
        case,
        say("ch2:reduce scatter at least:hint"),
    )


def assert_all_reduce(run, case: CollectiveCase, *, hint: str = "") -> None:
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"],
            reference.reduced(case),
            what=say("ch2:tensor", rank=rank),
            case=case,
            hint=hint,
        )


def assert_all_reduce_result(run, case: CollectiveCase) -> None:
    _returned_none(run, case, "ring_all_reduce")
    assert_all_reduce(run, case, hint=chunked_hint(case, say("ch2:all reduce:hint")))


def assert_all_reduce_ring(run, case: CollectiveCase, *, hint: str = "") -> None:
    assert_all_reduce(run, case, hint=chunked_hint(case, ""))
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_at_most(
        run.traces,
        case.ranks,
        reference.all_reduce_bytes(case),
        case,
        hint or say("ch2:all reduce at most:hint"),
    )
    assert_bytes_sent_at_least(
        run.traces,
        case.ranks,
        reference.all_reduce_bytes_at_least(case),
        case,
        say("ch2:all reduce at least:hint"),
    )


# -- all-to-all ---------------------------------------------------------------------------------


def assert_all_to_all(run, case: AllToAllCase, *, hint: str = "") -> None:
    expected = reference.all_to_all(case)
    for i, rank in enumerate(case.ranks):
        returned = run[rank]["returned"]
        if not isinstance(returned, list) or len(returned) != case.n:
            fail(say("ch2:not a list", rank=rank, n=case.n, type=type(returned).__name__), case)
        for j in range(case.n):
            assert_tensor_equal(
                returned[j], expected[i][j], what=say("ch2:out", rank=rank, j=j), case=case, hint=hint
            )


def assert_all_to_all_result(run, case: AllToAllCase) -> None:
    assert_all_to_all(run, case, hint=say("ch2:all to all:hint"))
    for i, rank in enumerate(case.ranks):
        for j in range(case.n):
            assert_unchanged(
                case.inputs[i][j],
                run[rank]["inputs_after"][j],
                what=say("ch2:inputs", rank=rank, j=j),
                case=case,
            )


def assert_all_to_all_traffic(run, case: AllToAllCase) -> None:
    assert_all_to_all(run, case)
    assert_no_self_messages(run.traces, case.ranks, case)

    def bound(rank):
        i = case.ranks.index(rank)
        payload = sum(t.numel() * t.element_size() for j, t in enumerate(case.inputs[i]) if j != i)
        return payload + METADATA_ALLOWANCE * (case.n - 1)

    assert_bytes_sent_at_most(run.traces, case.ranks, bound, case, say("ch2:all to all at most:hint"))

    def block(src, dst):
        t = case.inputs[case.ranks.index(src)][case.ranks.index(dst)]
        return t.numel() * t.element_size()

    assert_bytes_sent_per_dst_at_least(
        run.traces, case.ranks, block, case, say("ch2:all to all at least:hint")
    )


# -- cost model ---------------------------------------------------------------------------------


def assert_bytes_sent_formula(got, case) -> None:
    want = reference.bytes_sent_per_rank(case.collective, case.nbytes, case.n, case.algorithm)
    assert_number_close(
        got,
        want,
        say("ch2:bytes sent"),
        case,
        say("ch2:bytes sent:hint"),
    )


def assert_refuses(got: dict, case, function: str) -> None:
    """An unsupported (collective, algorithm) pair raises ValueError, as the module docstring says."""
    if got["raised"] != "ValueError":
        said = {"collective": case.collective, "algorithm": case.algorithm, "returned": got["returned"]}
        fail(say("ch2:refuses", function=function, **said), case, say("ch2:refuses:hint"))


def assert_alpha_beta_formula(got, case) -> None:
    want = reference.alpha_beta_time(
        case.collective, case.nbytes, case.n, case.alpha, case.beta, case.algorithm
    )
    assert_number_close(
        got,
        want,
        say("ch2:modelled time"),
        case,
        say("ch2:modelled time:hint"),
    )


def assert_bus_bandwidth_formula(got, case) -> None:
    want = reference.bus_bandwidth(case.collective, case.nbytes, case.n, case.seconds)
    assert_number_close(
        got,
        want,
        say("ch2:bus bandwidth"),
        case,
        say("ch2:bus bandwidth:hint"),
    )


def assert_measured_bytes(got, case) -> None:
    measured = max(MEASURED[(case.collective, case.n, case.numel)])
    assert_number_close(
        got,
        float(measured),
        say("ch2:measured bytes", collective=case.collective),
        case,
        say("ch2:measured bytes:hint"),
    )
