"""The pipeline simulator and the reference executor agree on every order.

Point-to-point messages between two stages arrive in the order they were sent, and the
executor receives each stage's next tensor in the order its own schedule needs them. The
simulator therefore rejects an order whose stages need their messages in another order than
they are sent (and says why); every order it accepts, the reference executor runs with the
right gradients. The reversed cool-down of 1F1B is the example of issue 11: valid for the
simulator before, wrong gradients in the executor.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch7 import cases, checks, tasks
from graders.chapters.ch7.simulator import message_order_problems, normalize
from graders.errors import GradingFailure
from graders.impl import Impl
from graders.world.pool import WorldPool

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

SOLUTIONS = Impl.resolve("solutions")


def reversed_cool_down(p: int, m: int) -> list[list[tuple[str, int]]]:
    """1F1B whose stages run their cool-down backwards last microbatch first."""
    schedule = []
    for s, row in enumerate(cases.one_f_one_b_order(p, m)):
        warmup = min(p - s - 1, m)
        schedule.append(row[: len(row) - warmup] + row[len(row) - warmup :][::-1])
    return schedule


@pytest.fixture(scope="module")
def pool():
    pool = WorldPool()
    yield pool
    pool.close()


def test_a_reversed_cool_down_is_rejected_and_the_reason_is_the_message_order():
    schedule = reversed_cool_down(3, 4)
    assert message_order_problems(normalize(schedule, 3, 4), 3) == [
        "stage 1 sends stage 0 the gradients for B0 B1 B2 B3 in this order, but stage 0 runs them as "
        "B0 B1 B3 B2: messages between two stages arrive in the order they were sent, so its B3 would "
        "receive the gradient meant for B2."
    ]
    with pytest.raises(GradingFailure, match="cannot run on point-to-point messages") as info:
        checks.simulated(schedule, cases.ScheduleCase(3, 4))
    assert "same order" in info.value.hint


def test_the_executor_would_get_a_reversed_cool_down_wrong(pool):
    """Why the simulator must reject it: the executor takes the messages in arrival order."""
    case = cases.pipeline_example(3, None, 4, "drawn", schedule=reversed_cool_down(3, 4))
    with pytest.raises(GradingFailure, match="gradient"):
        checks.assert_pipeline_gradients(pool.run(tasks.run_pipeline, SOLUTIONS, case), case)


@st.composite
def nearly_valid_orders(draw):
    """A valid order with up to two neighbouring actions of a stage swapped: valid again, out
    of message order, deadlocked or locally wrong."""
    p, m = draw(st.integers(2, 3)), draw(st.integers(1, 4))
    schedule = [list(row) for row in draw(cases.valid_orders(p, m))]
    for _ in range(draw(st.integers(0, 2))):
        row = schedule[draw(st.integers(0, p - 1))]
        i = draw(st.integers(0, len(row) - 2))
        row[i], row[i + 1] = row[i + 1], row[i]
    return p, m, schedule


@settings(max_examples=20, derandomize=True, database=None, deadline=None)
@given(drawn=nearly_valid_orders())
def test_every_order_the_simulator_accepts_runs_right_in_the_executor(pool, drawn):
    p, m, schedule = drawn
    try:
        checks.simulated(schedule, cases.ScheduleCase(p, m))
    except GradingFailure:
        return  # rejected, with a reason
    case = cases.pipeline_example(p, None, m, "drawn", schedule=schedule)
    checks.assert_pipeline_gradients(pool.run(tasks.run_pipeline, SOLUTIONS, case), case)


def test_one_chunk_interleaving_holds_no_more_than_1f1b():
    """At v = 1 the in-flight bound is 1F1B's p - s, not torch's one-chunk order's 2(p - s - 1) + 1."""
    from graders.chapters.ch7 import reference

    case = cases.ScheduleCase(4, 8, 1, interleaved=True)
    sim = checks.simulated(reference.interleaved_1f1b(4, 8, 1), case)
    with pytest.raises(GradingFailure, match=r"holds at most 4 there \(p - s\)"):
        checks.assert_matches_torch_interleaved(sim, case)
