"""Chapter 11 graders: the groups made for real (``process_groups.py``).

``build_groups`` runs on every rank of a world of the layout's size (2 to 8 processes, one now and
then): every group it returns must hold exactly its entry's ranks, and an all-reduce inside each
must sum them.
"""

from hypothesis import given

from graders.chapters.ch11 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples

#: a world of up to 8 processes on two cores: half of the profile's examples
HALF = fewer_examples(1 / 2)
WORLDS = cases.layouts(sizes=(1, 2, 2, 4, 4, 6, 8, 8), multi_rank=True)


@exercise("ch11.build_groups", part="result")
@HALF
@given(case=WORLDS)
@smallest_first(*cases.GROUP_EDGES)
def test_every_rank_gets_its_groups_and_they_work(harness, impl, case):
    checks.assert_groups_built(harness.run(tasks.build_groups, impl, case), case)
