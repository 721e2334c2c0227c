"""Chapter 2 graders: collectives built from point-to-point messages.

Run ``pytest exercises/ch2`` to grade your stubs; ``--impl PATH`` grades another folder.
Every property runs your code on 1-4 real gloo ranks and compares with a single-device result.
"""

from hypothesis import example, given

from graders.chapters.ch2 import cases, reference, tasks
from graders.checks import assert_tensor_equal, assert_unchanged, fail
from graders.comm.assertions import (
    assert_bytes_sent_at_most,
    assert_no_self_messages,
    assert_ring_neighbours_only,
    assert_rounds_at_most,
    assert_send_count,
    assert_total_messages,
)
from graders.comm.trace import ceil_log2
from graders.plugin import exercise

ALL_OPS = cases.OPS
EDGE = cases.edge_collectives()
EDGE_OPS = cases.edge_collectives(ops=ALL_OPS)
EDGE_SRC = cases.edge_collectives(rooted="src")
EDGE_DST = cases.edge_collectives(rooted="dst", ops=ALL_OPS)


def _returned_none(run, case, name):
    for rank in case.ranks:
        if run[rank]["returned"] is not None:
            fail(f"{name} works in place and returns None; rank {rank} returned something else.", case)


# -- ring_shift ----------------------------------------------------------------------------------


@exercise("ch2.ring_shift", part="result")
@given(case=cases.collective_cases())
@example(case=EDGE[2])
@example(case=EDGE[3])
def test_ring_shift(harness, impl, case):
    run = harness.run(tasks.ring_shift, impl, case)
    expected = reference.ring_shift(case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["returned"],
            expected[i],
            what=f"rank {rank}'s result",
            case=case,
            hint="rank r returns what its left neighbour (r - 1) % world sent.",
        )
        assert_unchanged(case.inputs[i], run[rank]["input_after"], what=f"rank {rank}'s input", case=case)
    assert_ring_neighbours_only(run.traces, case.ranks, case)


# -- broadcast / reduce: binomial trees ------------------------------------------------------------

TREE_HINT = (
    "in a binomial tree the set of ranks holding the data doubles every round: "
    "round k pairs rank r with rank r + 2^k (relative to the root)."
)


@exercise("ch2.broadcast", part="result")
@given(case=cases.collective_cases(rooted="src"))
@example(case=EDGE_SRC[3])
def test_broadcast(harness, impl, case):
    run = harness.run(tasks.broadcast, impl, case)
    _returned_none(run, case, "broadcast")
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"],
            reference.broadcast(case),
            what=f"rank {rank}'s tensor",
            case=case,
            hint="src is a global rank; every rank ends with src's data.",
        )


@exercise("ch2.broadcast", part="tree")
@given(case=cases.collective_cases(rooted="src", max_numel=64))
@example(case=EDGE_SRC[1])
def test_broadcast_is_a_binomial_tree(harness, impl, case):
    run = harness.run(tasks.broadcast, impl, case)
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"], reference.broadcast(case), what=f"rank {rank}'s tensor", case=case
        )
    assert_total_messages(run.traces, case.ranks, case.n - 1, case, TREE_HINT)
    assert_rounds_at_most(run.traces, ceil_log2(case.n), case, TREE_HINT)


@exercise("ch2.reduce", part="result")
@given(case=cases.collective_cases(ops=ALL_OPS, rooted="dst"))
@example(case=EDGE_DST[2])
@example(case=EDGE_DST[3])
def test_reduce(harness, impl, case):
    run = harness.run(tasks.reduce, impl, case)
    _returned_none(run, case, "reduce")
    assert_tensor_equal(
        run[case.root]["tensor"],
        reference.reduced(case),
        what=f"the result on dst rank {case.root}",
        case=case,
        hint="dst is a global rank; 'avg' divides the sum by the group size once.",
    )


@exercise("ch2.reduce", part="tree")
@given(case=cases.collective_cases(ops=ALL_OPS, rooted="dst", max_numel=64))
@example(case=EDGE_DST[1])
def test_reduce_is_a_binomial_tree(harness, impl, case):
    run = harness.run(tasks.reduce, impl, case)
    assert_tensor_equal(
        run[case.root]["tensor"],
        reference.reduced(case),
        what=f"the result on dst rank {case.root}",
        case=case,
    )
    assert_total_messages(run.traces, case.ranks, case.n - 1, case, TREE_HINT)
    assert_rounds_at_most(run.traces, ceil_log2(case.n), case, TREE_HINT)


# -- ring all-gather / reduce-scatter / all-reduce ---------------------------------------------------

RING_HINT = "each of the world - 1 steps moves one chunk one hop to the right."


@exercise("ch2.ring_all_gather", part="result")
@given(case=cases.collective_cases())
@example(case=EDGE[0])
@example(case=EDGE[3])
def test_ring_all_gather(harness, impl, case):
    run = harness.run(tasks.ring_all_gather, impl, case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["returned"],
            reference.all_gather(case),
            what=f"rank {rank}'s result",
            case=case,
            hint="block j of the result is group rank j's tensor.",
        )
        assert_unchanged(case.inputs[i], run[rank]["input_after"], what=f"rank {rank}'s input", case=case)


@exercise("ch2.ring_all_gather", part="ring")
@given(case=cases.collective_cases())
@example(case=EDGE[2])
def test_ring_all_gather_uses_the_ring(harness, impl, case):
    run = harness.run(tasks.ring_all_gather, impl, case)
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["returned"], reference.all_gather(case), what=f"rank {rank}'s result", case=case
        )
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_send_count(run.traces, case.ranks, case.n - 1, case, RING_HINT)
    block = case.numel * case.itemsize
    assert_bytes_sent_at_most(run.traces, case.ranks, (case.n - 1) * block, case, RING_HINT)


@exercise("ch2.ring_reduce_scatter", part="result")
@given(case=cases.collective_cases(ops=ALL_OPS))
@example(case=EDGE_OPS[0])
@example(case=EDGE_OPS[1])
@example(case=EDGE_OPS[2])
@example(case=EDGE_OPS[5])
def test_ring_reduce_scatter(harness, impl, case):
    run = harness.run(tasks.ring_reduce_scatter, impl, case)
    expected = reference.reduce_scatter(case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(
            run[rank]["returned"],
            expected[i],
            what=f"rank {rank}'s chunk",
            case=case,
            hint="rank r returns chunk r of torch.tensor_split(flat, world): chunks can be uneven or empty.",
        )
        assert_unchanged(case.inputs[i], run[rank]["input_after"], what=f"rank {rank}'s input", case=case)


@exercise("ch2.ring_reduce_scatter", part="ring")
@given(case=cases.collective_cases(ops=ALL_OPS))
@example(case=EDGE_OPS[2])
@example(case=EDGE_OPS[5])
def test_ring_reduce_scatter_bandwidth(harness, impl, case):
    run = harness.run(tasks.ring_reduce_scatter, impl, case)
    expected = reference.reduce_scatter(case)
    for i, rank in enumerate(case.ranks):
        assert_tensor_equal(run[rank]["returned"], expected[i], what=f"rank {rank}'s chunk", case=case)
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_at_most(
        run.traces,
        case.ranks,
        reference.reduce_scatter_bytes(case),
        case,
        "send one chunk per step, never the whole tensor.",
    )


@exercise("ch2.ring_all_reduce", part="result")
@given(case=cases.collective_cases(ops=ALL_OPS))
@example(case=EDGE_OPS[0])
@example(case=EDGE_OPS[1])
@example(case=EDGE_OPS[4])
def test_ring_all_reduce(harness, impl, case):
    run = harness.run(tasks.ring_all_reduce, impl, case)
    _returned_none(run, case, "ring_all_reduce")
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"],
            reference.reduced(case),
            what=f"rank {rank}'s tensor",
            case=case,
            hint="reduce-scatter leaves each rank one finished chunk; the all-gather phase "
            "must then pass every finished chunk around the ring.",
        )


@exercise("ch2.ring_all_reduce", part="ring")
@given(case=cases.collective_cases(ops=ALL_OPS))
@example(case=EDGE_OPS[2])
@example(case=EDGE_OPS[5])
def test_ring_all_reduce_bandwidth(harness, impl, case):
    run = harness.run(tasks.ring_all_reduce, impl, case)
    for rank in case.ranks:
        assert_tensor_equal(
            run[rank]["tensor"], reference.reduced(case), what=f"rank {rank}'s tensor", case=case
        )
    assert_ring_neighbours_only(run.traces, case.ranks, case)
    assert_bytes_sent_at_most(
        run.traces,
        case.ranks,
        reference.all_reduce_bytes(case),
        case,
        "a ring all-reduce sends 2(N-1)/N of the tensor per rank: one chunk per step.",
    )


# -- all-to-all ---------------------------------------------------------------------------------


@exercise("ch2.all_to_all", part="result")
@given(case=cases.all_to_all_cases())
def test_all_to_all(harness, impl, case):
    run = harness.run(tasks.all_to_all, impl, case)
    expected = reference.all_to_all(case)
    for i, rank in enumerate(case.ranks):
        returned = run[rank]["returned"]
        if not isinstance(returned, list) or len(returned) != case.n:
            fail(f"rank {rank}: expected a list of {case.n} tensors, got {type(returned).__name__}.", case)
        for j in range(case.n):
            assert_tensor_equal(
                returned[j],
                expected[i][j],
                what=f"rank {rank}'s out[{j}]",
                case=case,
                hint="out[j] is what rank j passed as inputs[rank]; its shape is only known "
                "to rank j, so send shapes first.",
            )
        for j in range(case.n):
            assert_unchanged(
                case.inputs[i][j], run[rank]["inputs_after"][j], what=f"rank {rank}'s inputs[{j}]", case=case
            )


METADATA_ALLOWANCE = 128  # bytes per peer for shapes, beyond the payload itself


@exercise("ch2.all_to_all", part="traffic")
@given(case=cases.all_to_all_cases())
def test_all_to_all_traffic(harness, impl, case):
    run = harness.run(tasks.all_to_all, impl, case)
    expected = reference.all_to_all(case)
    for i, rank in enumerate(case.ranks):
        for j in range(case.n):
            assert_tensor_equal(
                run[rank]["returned"][j], expected[i][j], what=f"rank {rank}'s out[{j}]", case=case
            )
    assert_no_self_messages(run.traces, case.ranks, case)

    def bound(rank):
        i = case.ranks.index(rank)
        payload = sum(t.numel() * t.element_size() for j, t in enumerate(case.inputs[i]) if j != i)
        return payload + METADATA_ALLOWANCE * (case.n - 1)

    assert_bytes_sent_at_most(
        run.traces, case.ranks, bound, case, "each block travels once, straight to its destination."
    )
