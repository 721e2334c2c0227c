"""Chapter 11 graders: the rank grid on machines (``placement.py``).

On layouts of up to 64 ranks and nodes of 1, 2, 4 or 8 GPUs: the groups of each dimension that
cross nodes, and an order that keeps the busiest groups inside nodes as well as any order can.
"""

from hypothesis import given

from graders.chapters.ch11 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise

NODES = cases.layouts(gpus=(1, 2, 4, 8))


@exercise("ch11.groups_crossing_nodes", part="result")
@given(case=NODES)
@smallest_first(*cases.PLACEMENT_EDGES)
def test_groups_crossing_nodes(harness, impl, case):
    checks.assert_crossing(harness.run(tasks.groups_crossing_nodes, impl, case), case)


@exercise("ch11.best_order", part="result")
@given(case=NODES)
@smallest_first(*cases.PLACEMENT_EDGES)
def test_best_order_keeps_the_busiest_groups_inside_nodes(harness, impl, case):
    checks.assert_best_order(harness.run(tasks.best_order, impl, case), case)
