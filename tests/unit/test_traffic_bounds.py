"""Every traffic promise says what must be sent, not only what may be: right values that came
from nowhere (no communication, or a token message) fail the traffic part."""

import pytest

from graders.chapters.ch4 import cases as ch4_cases
from graders.chapters.ch4 import checks as ch4_checks
from graders.chapters.ch4 import reference as ch4_reference
from graders.chapters.ch5 import cases as ch5_cases
from graders.chapters.ch5 import reference as ch5_reference
from graders.chapters.ch5 import traffic as ch5_traffic
from graders.comm.trace import Event, Traces
from graders.errors import GradingFailure
from graders.world.pool import RunResult


def _run(values, per_rank_steps, n_ranks, *, constructed=True):
    """A run whose ranks return ``values`` and whose step k on rank r issued
    ``per_rank_steps(r, k)`` = (forward calls, backward calls, step calls)."""
    traces = []
    for rank in range(n_ranks):
        events = [("mark:constructed",)] if constructed else []
        for k in range(3):
            forward, backward, step = per_rank_steps(rank, k)
            events += [*forward, ("mark:forward_end",), *backward, ("mark:backward_end",), *step]
            events.append(("mark:step_end",))
        traces.append(
            [Event(e[0], *(e[1:] or (0, -1, tuple(range(n_ranks)))), t, "") for t, e in enumerate(events)]
        )
    return RunResult(values=values, traces=Traces(traces), stdout=[""] * n_ranks)


def test_a_parameter_server_that_sends_nothing_fails_the_traffic_part():
    case = ch4_cases.TrainCase(3, None, "float32", ch4_cases.SGD_PLAIN, seed=1)
    history = ch4_reference.history(case)
    run = _run([{"history": history}] * 3, lambda r, k: ([], [], []), 3, constructed=False)
    with pytest.raises(GradingFailure, match="sent 0 B to the server"):
        ch4_checks.assert_load_on_the_server(run, case)


def test_zero1_with_a_token_all_gather_fails_the_traffic_part():
    case = ch5_cases.edge(2, optimizer=ch5_cases.ADAMW)
    history = ch5_reference.histories(case)[0]
    grads = ch5_reference.model_facts().bytes_of(ch5_reference.model_facts().gets_grad)

    def steps(rank, k):  # the whole gradient reduce-scattered, and a 4-byte decoy all-gather
        return [], [], [("reduce_scatter_single", grads, -1, (0, 1)), ("all_gather_single", 4, -1, (0, 1))]

    run = _run([{"history": history}] * 2, steps, 2)
    with pytest.raises(GradingFailure, match="of updated parameters into all-gathers"):
        ch5_traffic.assert_zero1_traffic(run, case)


def test_zero3_that_gathers_a_token_in_forward_fails_the_traffic_part():
    case = ch5_cases.edge(2, optimizer=ch5_cases.ADAMW)
    history = ch5_reference.histories(case)[0][-1:]
    group = (0, 1)

    def steps(rank, k):
        forward = [("all_gather_single", 8, -1, group)] * 2
        backward = [("all_gather_single", 400, -1, group), ("reduce_scatter_single", 800, -1, group)]
        return forward, backward, []

    run = _run([{"history": history}] * 2, steps, 2)
    with pytest.raises(GradingFailure, match="of shards into all-gathers in forward"):
        ch5_traffic.assert_zero3_traffic(run, case)
