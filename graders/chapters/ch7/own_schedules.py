"""Chapter 7: your executor on your own schedules (the ``own_schedules`` part).

Your ``schedules.py`` is asked for a GPipe or 1F1B schedule; the simulator must accept it
(otherwise the failure says why, and asks for that schedule to be fixed first), and then your
executor runs it in a real world. A deadlocking schedule hangs for real: the world's hang
report comes back with the simulator's explanation and the timeline.
"""

from __future__ import annotations

from graders.chapters.ch7 import cases, tasks, timeline
from graders.chapters.ch7.checks import simulated
from graders.chapters.ch7.simulator import Simulation
from graders.errors import GradingFailure, NotStarted, TaskHang
from graders.judge import figures
from graders.judge.checks import fail
from graders.words.messages import say
from graders.words.text import Text, labelled

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
    schedule_case = cases.ScheduleCase(case.p, case.m)
    try:
        raw = harness.run(task, impl, schedule_case)[0]
    except NotStarted:
        kit_order = cases.gpipe_order if case.name == "gpipe" else cases.one_f_one_b_order
        probe = cases.pipeline_example(case.p, None, case.m, case.name, schedule=kit_order(case.p, case.m))
        harness.run(tasks.run_pipeline, impl, probe)  # a stub executor is "not started" itself
        fail(say("ch7:own not started", exercise=exercise_id), case)
    except GradingFailure as exc:
        fail(say("ch7:own failed", exercise=exercise_id, error=_in_every_language(exc)), case)
    try:
        what = say("ch7:your exercise", exercise=exercise_id)
        sim = simulated(raw, schedule_case, what, deadlock_ok=True)
    except GradingFailure as exc:  # a deadlock runs for real below: its hang report teaches more
        fail(say("ch7:own rejected", exercise=exercise_id, error=_in_every_language(exc)), case)
    schedule = sim.schedule
    pipeline = cases.pipeline_example(
        case.p, None, case.m, f"your {case.name}", seed=case.seed, schedule=schedule
    )
    try:
        return harness.run(tasks.run_pipeline, impl, pipeline), pipeline
    except TaskHang as exc:
        if not sim.deadlocked:
            raise
        report = exc.report + labelled("example", exc.example) if exc.example else exc.report
        hang = TaskHang(explain_deadlock(report, exercise_id, sim))
        figures.attach(hang, "timeline", lambda path: timeline.render_timeline_png(schedule, path))
        raise hang from None


def explain_deadlock(report: str, exercise_id: str, sim: Simulation) -> Text:
    """The world's hang ``report``, then the simulator's explanation and the timeline."""
    waits = sim.deadlock_report(indent="  ")
    return (
        say("ch7:own deadlock", report=report, exercise=exercise_id, waits=waits) + "\n" + timeline.text(sim)
    )


def _in_every_language(exc: GradingFailure) -> Text:
    """A failure's feedback (message and hint) in every language it was written in."""
    return Text(getattr(exc, "localized", None) or {"en": str(exc)})
