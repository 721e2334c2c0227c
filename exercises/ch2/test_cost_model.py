"""Chapter 2 graders: the cost model of collectives (formulas in exercises/ch2/README.md)."""

from hypothesis import example, given

from graders.chapters.ch2 import cases, checks, tasks
from graders.plugin import exercise


# Every (collective, algorithm) pair the model defines, at an awkward world size, always runs.
def every_pair(test):
    for collective, algorithm in cases.SUPPORTED:
        test = example(case=cases.CostCase(collective, algorithm, 3 << 20, 6, 2e-6, 1e-9, 0.25))(test)
    return test


@exercise("ch2.bytes_sent_per_rank", part="formula")
@given(case=cases.cost_cases())
@every_pair
def test_bytes_sent_per_rank(harness, impl, case):
    checks.assert_bytes_sent_formula(harness.run(tasks.bytes_sent_per_rank, impl, case)[0], case)


@exercise("ch2.bytes_sent_per_rank", part="formula")
@given(case=cases.unsupported_cases())
@example(case=cases.CostCase("broadcast", "ring", 1024, 4))
def test_bytes_sent_per_rank_refuses_unsupported_pairs(harness, impl, case):
    checks.assert_refuses(
        harness.run(tasks.bytes_sent_per_rank_refusal, impl, case)[0], case, "bytes_sent_per_rank"
    )


@exercise("ch2.bytes_sent_per_rank", part="measured")
@given(case=cases.measured_cases())
def test_bytes_sent_per_rank_matches_the_reference_traffic(harness, impl, case):
    checks.assert_measured_bytes(harness.run(tasks.bytes_sent_per_rank, impl, case)[0], case)


@exercise("ch2.alpha_beta_time", part="formula")
@given(case=cases.cost_cases())
@every_pair
def test_alpha_beta_time(harness, impl, case):
    checks.assert_alpha_beta_formula(harness.run(tasks.alpha_beta_time, impl, case)[0], case)


@exercise("ch2.alpha_beta_time", part="formula")
@given(case=cases.unsupported_cases())
@example(case=cases.CostCase("all_gather", "tree", 1024, 4))
def test_alpha_beta_time_refuses_unsupported_pairs(harness, impl, case):
    checks.assert_refuses(harness.run(tasks.alpha_beta_time_refusal, impl, case)[0], case, "alpha_beta_time")


@exercise("ch2.bus_bandwidth", part="formula")
@given(case=cases.cost_cases())
@every_pair
def test_bus_bandwidth(harness, impl, case):
    checks.assert_bus_bandwidth_formula(harness.run(tasks.bus_bandwidth, impl, case)[0], case)
