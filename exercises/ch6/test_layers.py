"""Chapter 6 graders: the parallel layers (``layers.py``).

The linear layers are built from a full weight, run forward and backward on 1-4 real gloo
ranks, and compared with ``nn.Linear`` on one device (and with torch's DTensor
``ColwiseParallel`` / ``RowwiseParallel`` plans); the vocabulary-parallel embedding and
cross-entropy with ``F.embedding`` and ``F.cross_entropy``.
"""

from hypothesis import given

from graders.chapters.ch6 import cases, checks, tasks
from graders.chapters.ch6.vocab import cases as vocab_cases
from graders.chapters.ch6.vocab import checks as vocab_checks
from graders.chapters.ch6.vocab import tasks as vocab_tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples

#: the DTensor cross-checks build a device mesh and torch's plan every example: half as many
HALF = fewer_examples(1 / 2)

COLUMN, ROW = cases.linear_edges("column"), cases.linear_edges("row")


@exercise("ch6.column_parallel_linear", part="result")
@given(case=cases.linear_cases("column"))
@smallest_first(*COLUMN)
def test_column_parallel_linear(harness, impl, case):
    checks.assert_linear(harness.run(tasks.column_parallel_linear, impl, case), case)


@exercise("ch6.column_parallel_linear", part="traffic")
@given(case=cases.linear_cases("column", min_members=2))
@smallest_first(*COLUMN[1:])
def test_column_parallel_linear_traffic(harness, impl, case):
    checks.assert_linear_traffic(harness.run(tasks.column_parallel_linear, impl, case), case)


@exercise("ch6.column_parallel_linear", part="dtensor")
@given(case=cases.linear_cases("column", sequence_parallel=(False,), min_members=2))
@HALF
@smallest_first(COLUMN[1])
def test_column_parallel_linear_like_dtensor(harness, impl, case):
    checks.assert_linear_like_torch(harness.run(tasks.column_versus_torch, impl, case), case)


@exercise("ch6.row_parallel_linear", part="result")
@given(case=cases.linear_cases("row"))
@smallest_first(*ROW)
def test_row_parallel_linear(harness, impl, case):
    checks.assert_linear(harness.run(tasks.row_parallel_linear, impl, case), case)


@exercise("ch6.row_parallel_linear", part="backward")
@given(case=cases.linear_cases("row"))
@smallest_first(*ROW)
def test_row_parallel_linear_backward_is_hand_written(harness, impl, case):
    checks.assert_hand_written_backward(harness.run(tasks.row_parallel_linear_by_hand, impl, case), case)


@exercise("ch6.row_parallel_linear", part="traffic")
@given(case=cases.linear_cases("row", min_members=2))
@smallest_first(*ROW[1:])
def test_row_parallel_linear_traffic(harness, impl, case):
    checks.assert_linear_traffic(harness.run(tasks.row_parallel_linear, impl, case), case)


@exercise("ch6.row_parallel_linear", part="dtensor")
@given(case=cases.linear_cases("row", sequence_parallel=(False,), min_members=2))
@HALF
@smallest_first(ROW[1])
def test_row_parallel_linear_like_dtensor(harness, impl, case):
    checks.assert_linear_like_torch(harness.run(tasks.row_versus_torch, impl, case), case)


@exercise("ch6.vocab_parallel_embedding", part="result")
@given(case=vocab_cases.embedding_cases())
@smallest_first(*vocab_cases.EMBEDDING_EDGES)
def test_vocab_parallel_embedding(harness, impl, case):
    vocab_checks.assert_embedding(harness.run(vocab_tasks.vocab_parallel_embedding, impl, case), case)


@exercise("ch6.vocab_parallel_embedding", part="traffic")
@given(case=vocab_cases.embedding_cases(min_members=2))
@smallest_first(*vocab_cases.EMBEDDING_EDGES[1:])
def test_vocab_parallel_embedding_traffic(harness, impl, case):
    vocab_checks.assert_embedding_traffic(harness.run(vocab_tasks.vocab_parallel_embedding, impl, case), case)


@exercise("ch6.vocab_parallel_cross_entropy", part="result")
@given(case=vocab_cases.cross_entropy_cases())
@smallest_first(*vocab_cases.CROSS_ENTROPY_EDGES)
def test_vocab_parallel_cross_entropy(harness, impl, case):
    vocab_checks.assert_cross_entropy(harness.run(vocab_tasks.vocab_parallel_cross_entropy, impl, case), case)


@exercise("ch6.vocab_parallel_cross_entropy", part="traffic")
@given(case=vocab_cases.cross_entropy_cases(min_members=2, min_local_vocab=8))
@smallest_first(*vocab_cases.CROSS_ENTROPY_EDGES[1:])
def test_vocab_parallel_cross_entropy_traffic(harness, impl, case):
    vocab_checks.assert_cross_entropy_traffic(
        harness.run(vocab_tasks.vocab_parallel_cross_entropy, impl, case), case
    )


@exercise("ch6.vocab_parallel_cross_entropy", part="memory")
@given(case=vocab_cases.cross_entropy_cases(sizes=(3, 4), min_members=3, min_local_vocab=8))
@smallest_first(vocab_cases.CROSS_ENTROPY_EDGES[2])
def test_vocab_parallel_cross_entropy_never_gathers_the_logits(harness, impl, case):
    vocab_checks.assert_cross_entropy_memory(harness.run(vocab_tasks.cross_entropy_largest, impl, case), case)
