"""Chapter 5 graders: the memory and communication cost of each ZeRO stage, and the memory of
each tier with ZeRO-Offload and ZeRO-Infinity (zero_cost.py)."""

from hypothesis import example, given

from graders.chapters.ch5 import cases, checks, tasks
from graders.plugin import exercise


def _paper_rows(test):
    for stage, _ in cases.PAPER_TABLE:
        test = example(case=checks.paper_row(stage))(test)
    for stage in cases.INVALID_STAGES:
        test = example(case=checks.paper_row(stage))(test)
    return test


@exercise("ch5.zero_memory_per_gpu", part="formula")
@given(case=cases.cost_cases())
@_paper_rows
def test_zero_memory_per_gpu(harness, impl, case):
    checks.assert_memory_per_gpu(harness.run(tasks.zero_memory_per_gpu, impl, case)[0], case)


@exercise("ch5.zero_memory_per_gpu", part="paper")
@given(case=cases.cost_cases(with_k=False))
def test_zero_memory_per_gpu_reproduces_the_paper(harness, impl, case):
    rows = [
        harness.run(tasks.zero_memory_per_gpu, impl, checks.paper_row(s))[0] for s, _ in cases.PAPER_TABLE
    ]
    checks.assert_paper_table(rows, harness.run(tasks.zero_memory_per_gpu, impl, case)[0], case)


@exercise("ch5.zero_comm_volume", part="formula")
@given(case=cases.cost_cases(with_k=False))
@example(case=cases.CostCase(1, 7.5e9, 64))
@example(case=cases.CostCase(3, 7.5e9, 64))
@example(case=cases.CostCase(0, 1e6, 1))
@example(case=cases.CostCase(2, 1e6, 2))
@example(case=cases.CostCase(4, 7.5e9, 64))
@example(case=cases.CostCase(-1, 7.5e9, 64))
@example(case=cases.CostCase(1.5, 7.5e9, 64))
def test_zero_comm_volume(harness, impl, case):
    checks.assert_comm_volume(harness.run(tasks.zero_comm_volume, impl, case)[0], case)


@exercise("ch5.offload_memory_per_gpu", part="formula")
@given(case=cases.tier_cases())
@example(case=cases.TierCase("offload", 7.5e9, 64))
@example(case=cases.TierCase("cpu", 1e12, 512))
@example(case=cases.TierCase("nvme", 1e12, 16))
@example(case=cases.TierCase("gpu", 7.5e9, 64))
def test_offload_memory_per_gpu(harness, impl, case):
    checks.assert_offload_tiers(harness.run(tasks.offload_memory_per_gpu, impl, case)[0], case)
