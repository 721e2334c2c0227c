"""Chapter 7 graders: ``run_pipeline`` in a real world of 1-4 ranks.

Group rank s holds stage s of a small model (each stage ``[b, 4] -> [b, 4]``, with a frozen and
an unused parameter). The grader hands your executor a schedule: GPipe, 1F1B, or a random valid
one whose stages share one microbatch order (backwards not necessarily in forward order). It
compares every stage's gradients with one backward of the whole model on the whole batch,
counts the microbatches whose activations your stage kept alive, and reads the messages sent.
"""

from hypothesis import example, given

from graders.chapters.ch7 import cases, checks, own_schedules, tasks
from graders.plugin import exercise

EXAMPLES = (
    cases.pipeline_example(4, None, 3, "gpipe"),
    cases.pipeline_example(4, (0, 2, 3), 5, "1f1b", dtype="float64"),
    cases.pipeline_example(1, None, 2, "1f1b"),
    cases.pipeline_example(  # backwards in another order than the forwards
        2, None, 3, "drawn", schedule=cases.drawn_order(2, 3, [2, 0, 1], [[3, 3, 3], [3, 3, 3]])
    ),
)


@exercise("ch7.run_pipeline", part="gradients")
@given(case=cases.pipeline_cases())
@example(case=EXAMPLES[2])
@example(case=EXAMPLES[3])
@example(case=EXAMPLES[1])
@example(case=EXAMPLES[0])
def test_run_pipeline_gradients(harness, impl, case):
    checks.assert_pipeline_gradients(harness.run(tasks.run_pipeline, impl, case), case)


@exercise("ch7.run_pipeline", part="memory")
@given(case=cases.pipeline_cases())
@example(case=EXAMPLES[1])
@example(case=EXAMPLES[0])
def test_run_pipeline_keeps_only_the_schedules_activations(harness, impl, case):
    checks.assert_activation_peak(harness.run(tasks.run_pipeline, impl, case), case)


@exercise("ch7.run_pipeline", part="traffic")
@given(case=cases.pipeline_cases())
@example(case=EXAMPLES[1])
def test_run_pipeline_talks_to_neighbours_only(harness, impl, case):
    checks.assert_neighbour_traffic(harness.run(tasks.run_pipeline, impl, case), case)


@exercise("ch7.run_pipeline", part="own_schedules")
@given(case=cases.own_schedule_cases())
@example(case=cases.OwnScheduleCase("1f1b", 3, 4))
def test_run_pipeline_on_your_own_schedules(harness, impl, case):
    run, pipeline = own_schedules.run_own_schedule(harness, impl, case)
    checks.assert_pipeline_gradients(run, pipeline)
