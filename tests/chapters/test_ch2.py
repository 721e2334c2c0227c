"""Chapter 2's fixed points: the reference traffic the cost model is graded against, and the
correct alternatives that must earn full marks."""

from dataclasses import replace

import pytest

from graders.catalog import CHAPTERS
from graders.chapters.ch2 import cases, tasks
from graders.chapters.ch2.reference_traffic import MEASURED
from graders.impl import KIT_ROOT, Impl
from graders.misconceptions import mutants

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

SOLUTIONS = Impl.resolve("solutions")
CORRECT = sorted((KIT_ROOT / "fixtures/submissions/correct/ch2").iterdir())


def test_the_reference_traffic_is_what_the_reference_collectives_send(harness):
    measured = {}
    for collective, n, numel in MEASURED:
        case = replace(cases.MeasuredCase(collective, n, numel), world_size=n)
        run = harness.pool.run(tasks.collective_traffic, SOLUTIONS, case)
        measured[(collective, n, numel)] = tuple(run.traces.bytes_sent(rank) for rank in range(n))
    table = "".join(f"    {key!r}: {value!r},\n" for key, value in measured.items())
    assert measured == MEASURED, (
        f"solutions/ch2 now sends, per rank (paste into reference_traffic.py):\n{table}"
    )


@pytest.mark.parametrize("sample", CORRECT, ids=[path.name for path in CORRECT])
def test_a_correct_alternative_earns_full_marks(sample, harness):
    """Every part of every exercise whose file the sample has passes."""
    impl = Impl.resolve(sample)
    modules = {path.stem for path in sample.glob("*.py")}
    graded = {e.id for e in CHAPTERS["ch2"].exercises if e.module in modules}
    parts = [(f"{e}.{p}", fns) for (e, p), fns in mutants.exercise_tests("ch2").items() if e in graded]
    failed, passed = mutants.grade_parts(impl, harness, parts)
    assert not failed, failed
    assert len(passed) == len(parts) > 0


def test_the_sample_that_skips_empty_messages_sends_none_for_an_empty_tensor(harness):
    impl = Impl.resolve(KIT_ROOT / "fixtures/submissions/correct/ch2/skips_empty_messages")
    for task, edges in (
        (tasks.broadcast, cases.edge_collectives(rooted="src")),
        (tasks.ring_all_gather, None),
    ):
        case = (edges or cases.edge_collectives())["empty"]
        run = harness.pool.run(task, impl, case)
        assert [len(run.traces[rank]) for rank in case.ranks] == [0] * case.n
