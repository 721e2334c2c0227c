"""Chapter 7's machinery: the dependency simulator, torch's schedules, timelines and figures,
and the hang report of a deadlocking schedule."""

import base64
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch7 import cases, checks, reference, tasks, timeline
from graders.chapters.ch7.own_schedules import explain_deadlock
from graders.chapters.ch7.simulator import (
    ScheduleError,
    completeness_problems,
    ideal_makespan,
    local_order_problems,
    normalize,
    simulate,
)
from graders.errors import BannedCall, Failure, GradingFailure, TaskHang
from graders.gradebook import FAILED, Gradebook
from graders.grading.reports.feedback import markdown, write_figures
from graders.grading.sandboxed_run import StudentResult
from graders.impl import KIT_ROOT, Impl
from graders.judge import figures
from graders.plugin import pictures
from graders.world.pool import WorldPool

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

SOLUTIONS = Impl.resolve("solutions")
DEADLOCK = [[("F", 0), ("B", 0), ("F", 1), ("B", 1)], [("F", 0), ("F", 1), ("B", 0), ("B", 1)]]


def _solution_schedules():
    namespace = {}
    exec((KIT_ROOT / "solutions/ch7/schedules.py").read_text(), namespace)
    return namespace


# -- the simulator and torch's schedules ---------------------------------------------------------

TORCH_CASES = [
    (name, p, m, v)
    for name, vs in (("gpipe", [1]), ("1f1b", [1]), ("interleaved", [1, 2, 3, 4]))
    for p in (1, 2, 3, 5, 8)
    for m in (1, 2, 5, 8, 16, 24)
    for v in vs
    if (name != "interleaved" or v == 1 or m % p == 0)
    and cases.torch_has_schedule(cases.BubbleCase(name, p, m, v))
]


@pytest.mark.parametrize("name, p, m, v", TORCH_CASES)
def test_torch_schedules_are_valid_and_reach_the_formula(name, p, m, v):
    """The private torch APIs we read still work, and their schedules meet the curriculum's
    formulas, for a backward as long as a forward and for one twice as long."""
    chunks = v if name == "interleaved" else 1
    schedule = reference.TORCH_SCHEDULES[name](p, m, v)
    assert not completeness_problems(schedule, m, chunks) and not local_order_problems(schedule, chunks)
    for f_cost, b_cost in ((1, 1), (1, 2)):
        sim = simulate(schedule, p, m, chunks, f_cost, b_cost)
        assert not sim.deadlocked
        assert sim.makespan == ideal_makespan(name, p, m, chunks, f_cost, b_cost)
        assert sim.bubble_fraction == Fraction(p - 1, chunks * m + p - 1)


@pytest.mark.parametrize("p, m, v", [(2, 4, 2), (4, 8, 2), (3, 9, 4), (1, 5, 3), (8, 16, 3)])
def test_the_reference_interleaved_order_is_torchs(p, m, v):
    """Where m is a multiple of p, the reference solution is exactly torch's order."""
    schedule = _solution_schedules()["interleaved_1f1b_schedule"](p, m, v)
    assert schedule == reference.interleaved_1f1b(p, m, v)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), p=st.integers(1, 5), m=st.integers(1, 7))
def test_drawn_executor_schedules_are_valid(data, p, m):
    schedule = data.draw(cases.valid_orders(p, m))
    normal = normalize(schedule, p, m)
    assert not completeness_problems(normal, m) and not local_order_problems(normal)
    assert not simulate(normal, p, m).deadlocked


def test_the_kit_orders_are_gpipe_and_1f1b():
    namespace = _solution_schedules()
    for p, m in ((1, 1), (3, 2), (4, 7)):
        assert cases.gpipe_order(p, m) == namespace["gpipe_schedule"](p, m)
        assert cases.one_f_one_b_order(p, m) == namespace["one_f_one_b_schedule"](p, m)


def test_malformed_schedules_are_named():
    with pytest.raises(ScheduleError, match="expected 2 lists"):
        normalize([[("F", 0)]], 2, 1)
    with pytest.raises(ScheduleError, match="stage 0, action 1"):
        normalize([[("F", 0), ("X", 0)]], 1, 1)
    with pytest.raises(ScheduleError, match="names its chunk"):
        normalize([[("F", 0)]], 1, 1, 2)
    assert completeness_problems([[("F", 0, 0), ("F", 0, 0)]], 1) == [
        "stage 0 runs F0 more than once.",
        "stage 0 never runs B0.",
    ]
    assert "before F0" in local_order_problems([[("B", 0, 0), ("F", 0, 0)]])[0]


def test_a_deadlock_names_who_waits_for_what():
    sim = simulate(normalize(DEADLOCK, 2, 2), 2, 2)
    assert sim.deadlocked
    assert sim.deadlock_report().splitlines() == [
        "stage 0 is stuck at B0 (its action 1), waiting for the gradient of microbatch 0 from stage 1",
        "stage 1 is stuck at F1 (its action 1), waiting for the activation of microbatch 1 from stage 0",
    ]


def test_the_text_timeline_shows_the_bubble():
    sim = simulate(reference.gpipe(3, 2), 3, 2)
    assert timeline.text(sim).splitlines()[1:] == [
        "  stage 0 | F0 F1 ·  ·  ·  ·  B0 B1",
        "  stage 1 | ·  F0 F1 ·  ·  B0 B1 ·",
        "  stage 2 | ·  ·  F0 F1 B0 B1 ·  ·",
        "  makespan 8 · bubble (idle share) 1/2 = 50.0%",
    ]


def test_a_schedule_failure_carries_its_timeline():
    case = cases.ScheduleCase(2, 2)
    with pytest.raises(GradingFailure) as info:
        checks.simulated(DEADLOCK, case)
    assert "deadlocks" in str(info.value) and "⟂ stuck at B0" in str(info.value)
    assert [f.name for f in figures.figures_of(info.value)] == ["timeline"]
    vi = info.value.localized["vi"]  # the same failure as a Vietnamese student reads it
    assert vi.startswith("lịch (schedule) của bạn bị deadlock") and "\nví dụ: num_stages=2" in vi
    assert "dòng thời gian (mỗi cột" in vi and "⟂ kẹt tại B0 (action số 1 của nó), đang chờ gradient" in vi


# -- pictures ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not figures.matplotlib_available(), reason="matplotlib is not installed")
@pytest.mark.parametrize("schedule", [reference.interleaved_1f1b(2, 4, 2), DEADLOCK, [[("F", 0), ("B", 0)]]])
def test_render_timeline_png(tmp_path, schedule):
    path = timeline.render_timeline_png(schedule, tmp_path / "t.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_batch_feedback_links_the_figures(tmp_path):
    book = Gradebook()
    book.record(
        "ch7.gpipe_schedule",
        "order",
        FAILED,
        Failure.of("wrong", "no"),
        ["figures/ch7.gpipe_schedule.order-timeline.png"],
    )
    result = StudentResult(
        "ann",
        book,
        1.0,
        figures={"figures/ch7.gpipe_schedule.order-timeline.png": base64.b64encode(b"PNG").decode()},
    )
    write_figures(result, tmp_path)
    assert (tmp_path / "ann-figures/ch7.gpipe_schedule.order-timeline.png").read_bytes() == b"PNG"
    assert "![order](ann-figures/ch7.gpipe_schedule.order-timeline.png)" in markdown(result, "ch7")


@pytest.mark.skipif(not figures.matplotlib_available(), reason="matplotlib is not installed")
def test_the_plugin_draws_a_failures_figures_beside_the_report(tmp_path):
    """What the pytest plugin does for a failed part when --dtlab-report is given."""
    with pytest.raises(GradingFailure) as info:
        checks.simulated(DEADLOCK, cases.ScheduleCase(2, 2))
    written = pictures.draw_beside_report(tmp_path / "out/report.json", info, "ch7.gpipe_schedule", "valid")
    assert written == ["figures/ch7.gpipe_schedule.valid-timeline.png"]
    assert (tmp_path / "out" / written[0]).read_bytes()[:4] == b"\x89PNG"
    assert pictures.draw_beside_report(None, info, "ch7.gpipe_schedule", "valid") == []


# -- the executor in a real world -------------------------------------------------------------------


@pytest.fixture(scope="module")
def pool():
    pool = WorldPool()
    yield pool
    pool.close()


def test_a_deadlocking_schedule_gives_a_readable_hang_report(pool):
    pool.run(tasks.run_pipeline, SOLUTIONS, cases.pipeline_example(2, None, 2, "1f1b"))  # imports done
    case = cases.pipeline_example(2, None, 2, "yours", schedule=DEADLOCK)
    with pytest.raises(TaskHang) as info:
        pool.run(tasks.run_pipeline, SOLUTIONS, case, deadline=2.0)
    report = explain_deadlock(
        info.value.report, "ch7.one_f_one_b_schedule", simulate(normalize(DEADLOCK, 2, 2), 2, 2)
    )
    assert "rank 0: blocked in recv · from rank 1" in report
    assert (
        "stage 0: 1 forward(s) and 0 backward(s) done; next in its schedule: B0, which needs the gradient"
        in report
    )
    assert (
        "stage 0 is stuck at B0 (its action 1), waiting for the gradient of microbatch 0 from stage 1"
        in report
    )
    assert "⟂ stuck" in report
    assert "stage 0 bị kẹt tại B0 (action số 1 của nó), đang chờ gradient của microbatch số 0 từ stage 1" in (
        report.in_lang("vi")
    )


def test_importing_torch_pipelining_is_refused(pool, tmp_path):
    chapter = tmp_path / "ch7"
    chapter.mkdir()
    source = (KIT_ROOT / "solutions/ch7/schedules.py").read_text()
    source = source.replace(
        '    forwards = [("F", mb) for mb in range(num_microbatches)]',
        "    from torch.distributed.pipelining import ScheduleGPipe  # noqa\n"
        '    forwards = [("F", mb) for mb in range(num_microbatches)]',
    )
    (chapter / "schedules.py").write_text(source)
    with pytest.raises(BannedCall, match="imported torch.distributed.pipelining"):
        pool.run(tasks.gpipe_schedule, Impl.resolve(tmp_path), cases.ScheduleCase(2, 2))
    assert (
        "torch.distributed.pipelining"
        not in pool.run(tasks.gpipe_schedule, SOLUTIONS, cases.ScheduleCase(1, 1)).stdout
    )


def test_the_meter_counts_live_microbatches(pool):
    """GPipe keeps all m microbatches alive on every stage; 1F1B at most p - s."""
    for kind, peaks in (("gpipe", [3, 3, 3]), ("1f1b", [3, 2, 1])):
        run = pool.run(tasks.run_pipeline, SOLUTIONS, cases.pipeline_example(3, None, 3, kind))
        assert [run[r]["peak"] for r in range(3)] == peaks
