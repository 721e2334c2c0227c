"""Hidden graders of chapter 11: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points: layouts of a few
hundred ranks (96-512) in random orders, where every dimension has a size above 2, so a stride
taken from the wrong neighbour, or a size multiplied in the wrong place, shows in the groups of
every dimension and in the crossing groups of nodes of 8.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch11 import cases, checks, tasks
from graders.plugin import exercise

FEW = settings(max_examples=6)


@st.composite
def large_layouts(draw, gpus=(1,)):
    sizes = [draw(st.sampled_from((2, 3, 4))) for _ in cases.DIMS]
    order = "-".join(draw(st.permutations(cases.DIMS)))
    combos = draw(st.lists(st.sampled_from(cases.COMBINED), min_size=2, max_size=3, unique=True))
    return cases.LayoutCase(
        *sizes, order=order, combined=tuple(combos), gpus_per_node=draw(st.sampled_from(gpus))
    )


@exercise("ch11.rank_layout", part="groups")
@FEW
@given(case=large_layouts())
def test_each_dimension_has_its_groups_on_a_large_grid(harness, impl, case):
    checks.assert_single_groups(harness.run(tasks.rank_layout, impl, case), case)


@exercise("ch11.rank_layout", part="combined")
@FEW
@given(case=large_layouts())
def test_several_dimensions_have_their_groups_on_a_large_grid(harness, impl, case):
    checks.assert_combined_groups(harness.run(tasks.rank_layout, impl, case), case)


@exercise("ch11.groups_crossing_nodes", part="result")
@FEW
@given(case=large_layouts(gpus=(4, 8)))
def test_groups_crossing_nodes_on_a_large_grid(harness, impl, case):
    checks.assert_crossing(harness.run(tasks.groups_crossing_nodes, impl, case), case)
