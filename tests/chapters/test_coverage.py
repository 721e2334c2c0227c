"""Every distributed property's examples reach the places its bugs hide, in every chapter.

For each grader whose cases run on several ranks: 500 draws of its strategy (150 for the
capstone's trainer, whose every draw trains) reach each facet
of ``graders.authoring.coverage`` often enough (two ranks or more in at least half; a proper
subgroup, group ranks that differ from the global ones (for ``src``/``dst`` too) and every
dtype with two ranks and data in at least a tenth each), and the run the grading profile
makes (explicit examples first) is at least half multi-rank.
"""

import pytest
import torch
from hypothesis import settings

from graders import catalog
from graders.authoring import coverage
from graders.misconceptions import mutants
from graders.plugin import profiles

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

CHAPTERS = tuple(catalog.CHAPTERS)
DRAWS = 500
#: fewer draws where each one is dear: the capstone's filter trains two single-device GPTs per
#: draw (``well_conditioned``); 150 draws still put a 10% facet within about ±2.5% (one standard
#: deviation)
DRAWS_OF = {"ch11.trainer_3d": 150}
AT_LEAST = {coverage.MULTI_RANK: 0.5}  # every other facet: OFTEN
OFTEN = 0.1
#: draws that say whether a strategy runs on several ranks at all (else the test is skipped)
PROBE = 50


def _graders(chapter):
    """(id, test) of the chapter's property-based graders, imported under the grading profile."""
    previous = settings.get_current_profile_name()
    profiles.register()
    settings.load_profile("grading")
    try:
        tests = mutants.exercise_tests(chapter)
    finally:
        settings.load_profile(previous)
    return [
        (f"{exercise_id}:{part}:{test.__name__}", test)
        for (exercise_id, part), found in tests.items()
        for test in found
        if hasattr(test, "hypothesis")
    ]


GRADERS = [grader for chapter in CHAPTERS for grader in _graders(chapter)]


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the cases' tensors are tiny: a second thread only spins
    yield
    torch.set_num_threads(threads)


_DRAWN: dict[str, list] = {}


def _draws(strategy, n: int) -> list:
    """``n`` values of ``strategy``, drawn once for every grader that draws from an equal one (a
    chapter's parts share their cases' strategy)."""
    key = (repr(strategy), n)
    if key not in _DRAWN:
        _DRAWN[key] = coverage.strategy_draws(strategy, n)
    return _DRAWN[key]


@pytest.mark.parametrize("key, test", GRADERS, ids=[key for key, _ in GRADERS])
def test_a_distributed_property_reaches_every_facet(key, test):
    strategy = coverage.given_strategy(test)
    n = DRAWS_OF.get(key.split(":")[0], DRAWS)
    # a dear strategy is drawn once: its first draws say whether it runs on several ranks
    first = _draws(strategy, n)[:PROBE] if n < DRAWS else _draws(strategy, PROBE)
    if not any(coverage.is_distributed(case) for case in first):
        pytest.skip("runs on one rank only")
    found = coverage.shares(_draws(strategy, n))
    low = {name: share for name, share in found.items() if share < AT_LEAST.get(name, OFTEN)}
    assert not low, f"{key}: too rare in {n} draws: {low} (all: {found})"
    run = coverage.property_draws(test, key)
    multi = sum(coverage.is_distributed(case) for case in run)
    assert multi >= len(run) / 2, f"{key}: {multi} of {len(run)} examples of the grading run on 2+ ranks"
