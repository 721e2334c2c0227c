"""Chapter 2 graders: the cost model of collectives (formulas in exercises/ch2/README.md)."""

import math

from hypothesis import example, given

from graders.chapters.ch2 import cases, reference, tasks
from graders.checks import fail
from graders.errors import NotStarted
from graders.plugin import exercise


# Every (collective, algorithm) pair the model defines, at an awkward world size, always runs.
def every_pair(test):
    for collective, algorithm in cases.SUPPORTED:
        test = example(case=cases.CostCase(collective, algorithm, 3 << 20, 6, 2e-6, 1e-9, 0.25))(test)
    return test


def _assert_close(actual, expected, what, case, hint=""):
    if not isinstance(actual, int | float) or isinstance(actual, bool):
        fail(f"{what}: expected a number, got {actual!r}.", case, hint)
    if not math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-12):
        fail(f"{what}: expected {expected!r}, got {actual!r}.", case, hint)


@exercise("ch2.bytes_sent_per_rank", part="formula")
@given(case=cases.cost_cases())
@every_pair
def test_bytes_sent_per_rank(harness, impl, case):
    got = harness.run(tasks.bytes_sent_per_rank, impl, case)[0]
    want = reference.bytes_sent_per_rank(case.collective, case.nbytes, case.n, case.algorithm)
    _assert_close(
        got,
        want,
        "bytes sent by the busiest rank",
        case,
        "ring: every rank sends N-1 chunks of nbytes/N per phase; tree: the root forwards the "
        "whole buffer once per round.",
    )


@exercise("ch2.bytes_sent_per_rank", part="measured")
@given(case=cases.measured_cases())
def test_bytes_sent_per_rank_matches_your_collectives(harness, impl, case):
    harness.run(tasks.bytes_sent_per_rank, impl, cases.CostCase(case.collective, case.algorithm, 4096, 4))
    try:
        run = harness.run(tasks.measured_traffic, impl, case)
    except NotStarted:
        fail(
            f"this check measures your {case.collective} from collectives.py, which is not started yet.", case
        )
    measured = max(run.traces.bytes_sent(rank) for rank in range(case.world_size))
    _assert_close(
        run[0]["predicted"],
        float(measured),
        f"your model's bytes for {case.collective} vs. what your implementation sent",
        case,
        "the model should predict exactly what the busiest rank of your own collective sent.",
    )


@exercise("ch2.alpha_beta_time", part="formula")
@given(case=cases.cost_cases())
@every_pair
def test_alpha_beta_time(harness, impl, case):
    got = harness.run(tasks.alpha_beta_time, impl, case)[0]
    want = reference.alpha_beta_time(
        case.collective, case.nbytes, case.n, case.alpha, case.beta, case.algorithm
    )
    _assert_close(
        got,
        want,
        "modelled time (s)",
        case,
        "count the messages on the critical path (alpha each) and the bytes on the busiest link (beta each).",
    )


@exercise("ch2.bus_bandwidth", part="formula")
@given(case=cases.cost_cases())
@every_pair
def test_bus_bandwidth(harness, impl, case):
    got = harness.run(tasks.bus_bandwidth, impl, case)[0]
    want = reference.bus_bandwidth(case.collective, case.nbytes, case.n, case.seconds)
    _assert_close(
        got,
        want,
        "bus bandwidth (B/s)",
        case,
        "busbw = nbytes / seconds times 2(N-1)/N for all_reduce, (N-1)/N for all_gather, "
        "reduce_scatter and all_to_all, 1 for broadcast and reduce.",
    )
