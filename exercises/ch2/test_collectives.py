"""Chapter 2 graders: collectives built from point-to-point messages.

Run ``pytest exercises/ch2`` to grade your stubs; ``--impl PATH`` grades another folder.
Every property runs your code on 1-4 real gloo ranks and compares with a single-device result.
The named edge cases (``graders/chapters/ch2/cases.py``) run first, smallest first.
"""

from hypothesis import given

from graders.chapters.ch2 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise

ALL_OPS = cases.OPS
EDGE = cases.edge_collectives()
EDGE_OPS = cases.edge_collectives(ops=ALL_OPS)
EDGE_SRC = cases.edge_collectives(rooted="src")
EDGE_DST = cases.edge_collectives(rooted="dst", ops=ALL_OPS)
EDGE_A2A = cases.EDGE_ALL_TO_ALL


def edges(table, *names):
    return smallest_first(*(table[name] for name in names))


@exercise("ch2.ring_shift", part="result")
@given(case=cases.collective_cases())
@edges(EDGE, "subgroup", "float64 sum")
def test_ring_shift(harness, impl, case):
    checks.assert_ring_shift(harness.run(tasks.ring_shift, impl, case), case)


@exercise("ch2.broadcast", part="result")
@given(case=cases.collective_cases(rooted="src"))
@edges(EDGE_SRC, "one rank", "subgroup", "numel < N", "subgroup of 4")
def test_broadcast(harness, impl, case):
    checks.assert_broadcast_result(harness.run(tasks.broadcast, impl, case), case)


@exercise("ch2.broadcast", part="tree")
@given(case=cases.collective_cases(rooted="src", max_numel=64))
@edges(EDGE_SRC, "subgroup", "empty", "numel < N")
def test_broadcast_is_a_binomial_tree(harness, impl, case):
    run = harness.run(tasks.broadcast, impl, case)
    checks.assert_broadcast(run, case)
    checks.assert_broadcast_tree(run, case)


@exercise("ch2.reduce", part="result")
@given(case=cases.collective_cases(ops=ALL_OPS, rooted="dst"))
@edges(
    EDGE_DST, "one rank", "subgroup", "float64 sum", "whole world as a group", "numel < N", "subgroup of 4"
)
def test_reduce(harness, impl, case):
    checks.assert_reduce_result(harness.run(tasks.reduce, impl, case), case)


@exercise("ch2.reduce", part="tree")
@given(case=cases.collective_cases(ops=ALL_OPS, rooted="dst", max_numel=64))
@edges(EDGE_DST, "subgroup", "empty", "numel < N")
def test_reduce_is_a_binomial_tree(harness, impl, case):
    run = harness.run(tasks.reduce, impl, case)
    checks.assert_reduce(run, case)
    checks.assert_reduce_tree(run, case)


@exercise("ch2.ring_all_gather", part="result")
@given(case=cases.collective_cases())
@edges(EDGE, "subgroup", "empty", "numel < N")
def test_ring_all_gather(harness, impl, case):
    checks.assert_all_gather_result(harness.run(tasks.ring_all_gather, impl, case), case)


@exercise("ch2.ring_all_gather", part="ring")
@given(case=cases.collective_cases())
@edges(EDGE, "subgroup", "float64 sum", "empty")
def test_ring_all_gather_uses_the_ring(harness, impl, case):
    checks.assert_all_gather_ring(harness.run(tasks.ring_all_gather, impl, case), case)


@exercise("ch2.ring_reduce_scatter", part="result")
@given(case=cases.collective_cases(ops=ALL_OPS))
@edges(
    EDGE_OPS,
    "one rank",
    "subgroup",
    "float64 sum",
    "whole world as a group",
    "empty",
    "numel < N",
    "split, not chunk",
)
def test_ring_reduce_scatter(harness, impl, case):
    checks.assert_reduce_scatter_result(harness.run(tasks.ring_reduce_scatter, impl, case), case)


@exercise("ch2.ring_reduce_scatter", part="ring")
@given(case=cases.collective_cases(ops=ALL_OPS))
@edges(EDGE_OPS, "subgroup", "float64 sum", "numel < N", "split, not chunk")
def test_ring_reduce_scatter_bandwidth(harness, impl, case):
    checks.assert_reduce_scatter_ring(harness.run(tasks.ring_reduce_scatter, impl, case), case)


@exercise("ch2.ring_all_reduce", part="result")
@given(case=cases.collective_cases(ops=ALL_OPS))
@edges(EDGE_OPS, "one rank", "subgroup", "float64 sum", "whole world as a group", "empty", "numel < N")
def test_ring_all_reduce(harness, impl, case):
    checks.assert_all_reduce_result(harness.run(tasks.ring_all_reduce, impl, case), case)


@exercise("ch2.ring_all_reduce", part="ring")
@given(case=cases.collective_cases(ops=ALL_OPS))
@edges(EDGE_OPS, "subgroup", "float64 sum", "numel < N", "split, not chunk")
def test_ring_all_reduce_bandwidth(harness, impl, case):
    checks.assert_all_reduce_ring(harness.run(tasks.ring_all_reduce, impl, case), case)


@exercise("ch2.all_to_all", part="result")
@given(case=cases.all_to_all_cases())
@edges(EDGE_A2A, "empty", "subgroup")
def test_all_to_all(harness, impl, case):
    checks.assert_all_to_all_result(harness.run(tasks.all_to_all, impl, case), case)


@exercise("ch2.all_to_all", part="traffic")
@given(case=cases.all_to_all_cases())
@edges(EDGE_A2A, "empty", "subgroup")
def test_all_to_all_traffic(harness, impl, case):
    checks.assert_all_to_all_traffic(harness.run(tasks.all_to_all, impl, case), case)
