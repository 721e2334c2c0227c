"""Chapter 11 graders: the rank grid (``topology.py``).

Your ``RankLayout`` on layouts of up to 64 ranks, in the default order and in random ones: every
rank's coordinates and the rank they give back, the groups of each dimension, and of several
dimensions at once, against Megatron-Core's convention (the first name of ``order`` fastest).
"""

from hypothesis import given

from graders.chapters.ch11 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise

EDGES = cases.LAYOUT_EDGES


@exercise("ch11.rank_layout", part="coords")
@given(case=cases.layouts())
@smallest_first(*EDGES)
def test_coordinates_round_trip(harness, impl, case):
    checks.assert_coords(harness.run(tasks.rank_layout, impl, case), case)


@exercise("ch11.rank_layout", part="groups")
@given(case=cases.layouts())
@smallest_first(*EDGES)
def test_each_dimension_has_its_groups(harness, impl, case):
    checks.assert_single_groups(harness.run(tasks.rank_layout, impl, case), case)


@exercise("ch11.rank_layout", part="combined")
@given(case=cases.layouts())
@smallest_first(*EDGES)
def test_several_dimensions_have_their_groups(harness, impl, case):
    checks.assert_combined_groups(harness.run(tasks.rank_layout, impl, case), case)
