"""Chapter 11's rank grid is Megatron-Core's: the grader's reference groups equal what
``megatron.core.parallel_state.RankGenerator.get_ranks`` gives, for every single and combined
dimension, on layouts in every order (Megatron puts ep and cp in separate generators: one of the
two is 1 here). ``scripts/setup.sh`` installs megatron-core without its dependencies for this test.
"""

import warnings
from itertools import permutations

import pytest

from graders.chapters.ch11 import cases, reference


@pytest.fixture(scope="module")
def parallel_state():
    """Imported by the test (about 3.5 s), not by every session that collects it and deselects it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip("megatron.core.parallel_state")


LAYOUTS = [(2, 1, 1, 2, 2), (2, 2, 1, 3, 2), (4, 1, 2, 2, 1), (1, 3, 1, 2, 2), (2, 1, 3, 1, 2)]
ENTRIES = ("tp", "cp", "ep", "dp", "pp", *cases.COMBINED)


@pytest.mark.parametrize("sizes", LAYOUTS, ids=lambda s: "tp{}-cp{}-ep{}-dp{}-pp{}".format(*s))
def test_the_groups_are_megatrons(sizes, parallel_state):
    tp, cp, ep, dp, pp = sizes
    for names in list(permutations(cases.DIMS))[::7]:
        order = "-".join(names)
        case = cases.LayoutCase(tp, cp, ep, dp, pp, order=order)
        generator = parallel_state.RankGenerator(tp=tp, ep=ep, dp=dp, pp=pp, cp=cp, order=order)
        for entry in ENTRIES:
            assert reference.groups(case, entry) == sorted(generator.get_ranks(entry)), (order, entry)
