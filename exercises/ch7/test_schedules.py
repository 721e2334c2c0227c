"""Chapter 7 graders: pipeline schedules, checked by a dependency simulator.

Run ``pytest exercises/ch7`` to grade your work. Your schedule functions run in a worker; the
grader simulates what they return: every stage runs its actions in order, an action waits
until its inputs have arrived (blocking receives; sends never wait), a forward and a backward
each take one time unit per stage. A failure shows your schedule as a timeline.
"""

from hypothesis import example, given

from graders.chapters.ch7 import cases, checks, tasks
from graders.plugin import exercise

Case = cases.ScheduleCase

# -- GPipe ----------------------------------------------------------------------------------------


@exercise("ch7.gpipe_schedule", part="valid")
@given(case=cases.schedule_cases())
@example(case=Case(1, 1))
@example(case=Case(4, 3))
def test_gpipe_schedule_is_valid(harness, impl, case):
    checks.simulated(harness.run(tasks.gpipe_schedule, impl, case)[0], case)


@exercise("ch7.gpipe_schedule", part="order")
@given(case=cases.schedule_cases())
@example(case=Case(3, 5))
def test_gpipe_schedule_flushes(harness, impl, case):
    sim = checks.simulated(harness.run(tasks.gpipe_schedule, impl, case)[0], case)
    checks.assert_gpipe_order(sim, case)
    checks.assert_makespan(sim, "gpipe", case)


# -- 1F1B -----------------------------------------------------------------------------------------


@exercise("ch7.one_f_one_b_schedule", part="valid")
@given(case=cases.schedule_cases())
@example(case=Case(1, 3))
@example(case=Case(4, 2))
def test_one_f_one_b_schedule_is_valid(harness, impl, case):
    checks.simulated(harness.run(tasks.one_f_one_b_schedule, impl, case)[0], case)


@exercise("ch7.one_f_one_b_schedule", part="warmup")
@given(case=cases.schedule_cases())
@example(case=Case(4, 6))
@example(case=Case(5, 2))  # fewer microbatches than stages: the warm-up is capped at m
def test_one_f_one_b_warmup_and_steady_state(harness, impl, case):
    sim = checks.simulated(harness.run(tasks.one_f_one_b_schedule, impl, case)[0], case)
    checks.assert_one_f_one_b_shape(sim, case)


@exercise("ch7.one_f_one_b_schedule", part="makespan")
@given(case=cases.schedule_cases())
@example(case=Case(4, 8))
def test_one_f_one_b_makespan(harness, impl, case):
    sim = checks.simulated(harness.run(tasks.one_f_one_b_schedule, impl, case)[0], case)
    checks.assert_makespan(sim, "1f1b", case)


# -- interleaved 1F1B -----------------------------------------------------------------------------

ICase = cases.ScheduleCase


def interleaved(p, m, v):
    return ICase(p, m, v, interleaved=True)


@exercise("ch7.interleaved_1f1b_schedule", part="valid")
@given(case=cases.interleaved_cases())
@example(case=interleaved(1, 2, 3))
@example(case=interleaved(3, 5, 1))
@example(case=interleaved(4, 8, 2))
def test_interleaved_schedule_is_valid(harness, impl, case):
    checks.simulated(harness.run(tasks.interleaved_1f1b_schedule, impl, case)[0], case)


@exercise("ch7.interleaved_1f1b_schedule", part="makespan")
@given(case=cases.interleaved_cases())
@example(case=interleaved(2, 2, 4))
@example(case=interleaved(4, 8, 2))
def test_interleaved_makespan(harness, impl, case):
    sim = checks.simulated(harness.run(tasks.interleaved_1f1b_schedule, impl, case)[0], case)
    checks.assert_makespan(sim, "interleaved", case)


@exercise("ch7.interleaved_1f1b_schedule", part="torch")
@given(case=cases.interleaved_cases())
@example(case=interleaved(2, 4, 2))
@example(case=interleaved(3, 4, 1))
@example(case=interleaved(4, 8, 1))
@example(case=interleaved(4, 8, 3))
def test_interleaved_matches_torch(harness, impl, case):
    """Compared with torch.distributed.pipelining's ScheduleInterleaved1F1B (m a multiple of p);
    with one chunk, with 1F1B (at most p - s activations in flight)."""
    sim = checks.simulated(harness.run(tasks.interleaved_1f1b_schedule, impl, case)[0], case)
    checks.assert_matches_torch_interleaved(sim, case)
