"""Chapter 7 checks on a real pipeline run: gradients, stored activations, messages."""

from __future__ import annotations

from graders import figures
from graders.chapters.ch7 import cases, reference, tasks
from graders.chapters.ch7.checks import schedule_failure
from graders.chapters.ch7.simulator import ScheduleError, Simulation, normalize, simulate
from graders.chapters.ch7.timeline import render_timeline_png
from graders.chapters.ch7.timeline import text as timeline_text
from graders.checks import assert_tensor_equal, fail
from graders.errors import GradingFailure, NotStarted, TaskHang

GRADIENT_HINT = (
    "the gradient is that of the mean of the microbatch losses: scale each microbatch's loss by "
    "1 / num_microbatches, receive a gradient for exactly the output you sent, and backpropagate "
    "each microbatch through the graph of its own forward."
)


def assert_pipeline_gradients(run, case: cases.PipelineCase) -> None:
    """Every stage's gradients (None for frozen and unused parameters) and the last stage's
    returned loss equal one backward of the whole model on the whole batch."""
    loss, grads = reference.pipeline_gradients(case)
    for s, rank in enumerate(case.ranks):
        got = run[rank]["grads"]
        for name, want in grads[s].items():
            what = f"stage {s} (rank {rank}): gradient of {name}"
            if want is None and got.get(name) is not None:
                fail(
                    f"{what} should stay None: the parameter is frozen or unused.",
                    case,
                    "only parameters that take part in the forward get a gradient.",
                )
            if want is not None:
                assert_tensor_equal(got.get(name), want, what=what, case=case, hint=GRADIENT_HINT)
    last = case.ranks[-1]
    returned = run[last]["returned"]
    value = returned.item() if hasattr(returned, "numel") and returned.numel() == 1 else returned
    if not isinstance(value, int | float) or isinstance(value, bool):
        fail(f"the last stage (rank {last}) must return the mean loss, got {returned!r}.", case)
    if abs(value - loss.item()) > 1e-5 * max(1.0, abs(loss.item())):
        fail(
            f"the last stage (rank {last}) returned loss {value!r}, the batch mean loss is {loss.item()!r}.",
            case,
            "return the mean of the microbatch losses.",
        )


def assert_activation_peak(run, case: cases.PipelineCase) -> None:
    """No stage keeps more microbatches' saved activations alive than its schedule has in flight."""
    for s, rank in enumerate(case.ranks):
        if run[rank]["forwards"] < case.m:
            fail(
                f"stage {s} (rank {rank}) called its stage module {run[rank]['forwards']} time(s) for "
                f"{case.m} forwards: run every forward through stage_module(x), which is where the "
                "grader measures the stored activations.",
                case,
            )
        peak, bound = run[rank]["peak"], case.peak(s)
        if peak <= bound:
            continue
        shape = {"gpipe": "GPipe holds all m", "1f1b": f"1F1B holds at most p - s = {case.p - s}"}
        raise schedule_failure(
            f"stage {s} (rank {rank}) kept the activations of {peak} microbatches alive at once; "
            f"its schedule never has more than {bound} in flight"
            + (f" ({shape[case.kind]})." if case.kind in shape else "."),
            case,
            "once a microbatch's backward has run, drop every reference to its input and output "
            "(and never use retain_graph=True), so that autograd frees its saved activations.",
            simulate(normalize(case.schedule, case.p, case.m), case.p, case.m),
        )


def assert_neighbour_traffic(run, case: cases.PipelineCase) -> None:
    """Stage s sends exactly one activation per microbatch to s + 1, one gradient per microbatch
    to s - 1, each of the activation's size, and nothing else."""
    nbytes = case.activation_bytes
    for s, rank in enumerate(case.ranks):
        expected = {}
        if s + 1 < case.p:
            expected[case.ranks[s + 1]] = "activation"
        if s > 0:
            expected[case.ranks[s - 1]] = "gradient"
        sent: dict[int, list[int]] = {}
        for event in run.traces[rank]:
            if event.is_send:
                sent.setdefault(event.peer, []).append(event.nbytes)
        for peer, sizes in sorted(sent.items()):
            if peer not in expected:
                fail(
                    f"stage {s} (rank {rank}) sent {len(sizes)} message(s) to rank {peer}: a stage only "
                    "sends activations to the next stage and gradients to the previous one.",
                    case,
                )
        for peer, what in expected.items():
            sizes = sent.get(peer, [])
            if len(sizes) != case.m or any(n != nbytes for n in sizes):
                fail(
                    f"stage {s} (rank {rank}) sent {len(sizes)} message(s) to rank {peer} "
                    f"({sum(sizes)} bytes); it must send one {what} of {nbytes} bytes per microbatch: "
                    f"{case.m} messages.",
                    case,
                    "send each activation and each gradient once, and nothing else (the shapes are known).",
                )


_SCHEDULE_TASKS = {
    "gpipe": ("ch7.gpipe_schedule", tasks.gpipe_schedule),
    "1f1b": ("ch7.one_f_one_b_schedule", tasks.one_f_one_b_schedule),
}


def run_own_schedule(harness, impl, case: cases.OwnScheduleCase):
    """Ask your schedules.py for a schedule, then run your executor on it.

    Returns (run, pipeline case). A deadlocking schedule hangs for real: the world's hang report
    (what every rank is blocked in, which microbatch its schedule is at) comes back with the
    dependency simulator's explanation and the timeline of the schedule.
    """
    exercise_id, task = _SCHEDULE_TASKS[case.name]
    try:
        raw = harness.run(task, impl, cases.ScheduleCase(case.p, case.m))[0]
    except NotStarted:
        kit_order = cases.gpipe_order if case.name == "gpipe" else cases.one_f_one_b_order
        probe = cases.pipeline_example(case.p, None, case.m, case.name, schedule=kit_order(case.p, case.m))
        harness.run(tasks.run_pipeline, impl, probe)  # a stub executor is "not started" itself
        fail(f"this check runs your executor on your own {exercise_id}, which is not started yet.", case)
    except GradingFailure as exc:
        fail(f"your {exercise_id} failed, so your executor cannot run it:\n{exc}", case)
    try:
        schedule = normalize(raw, case.p, case.m)
    except ScheduleError as exc:
        fail(f"your {exercise_id} returned a malformed schedule ({exc}); fix {exercise_id} first.", case)
    sim = simulate(schedule, case.p, case.m)
    pipeline = cases.pipeline_example(
        case.p, None, case.m, f"your {case.name}", seed=case.seed, schedule=schedule
    )
    try:
        return harness.run(tasks.run_pipeline, impl, pipeline), pipeline
    except TaskHang as exc:
        if not sim.deadlocked:
            raise
        hang = TaskHang(explain_deadlock(exc.report, exercise_id, sim))
        figures.attach(hang, "timeline", lambda path: render_timeline_png(schedule, path))
        raise hang from None


def explain_deadlock(report: str, exercise_id: str, sim: Simulation) -> str:
    return (
        f"{report}\n\nYour {exercise_id} deadlocks: the dependency simulator finds these stages waiting "
        "for each other forever:\n  "
        + sim.deadlock_report().replace("\n", "\n  ")
        + "\n"
        + timeline_text(sim)
    )
