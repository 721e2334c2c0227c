"""How the examples of a distributed property spread over the places its bugs hide.

A kit author's measuring tape (``tests/chapters/test_coverage.py``, ``bench/example_shares.py``). A bug
that treats a global ``src`` as a group rank only shows on a subgroup whose group ranks differ
from its global ranks; one that accumulates float64 in float32 only with two ranks and data.
:func:`facets` says which of those places a case reaches; :func:`shares` what share of a list
of cases reaches each. Cases are the chapters' dataclasses: ``world_size`` and, where the
property takes ``group=``, ``group`` (``ranks`` and ``n`` from ``graders.judge.strategies.GroupMembers``),
optionally ``dtype``, ``numel`` (elements that must travel) and ``rooted`` / ``root``.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import HealthCheck, Phase, given, settings

from graders.plugin import profiles

MULTI_RANK = "≥ 2 ranks"
PROPER_SUBGROUP = "proper subgroup"
RELABELLED = "group ranks ≠ global"
RELABELLED_ROOT = "src/dst group rank ≠ global"


def _members(case) -> tuple[int, ...]:
    return tuple(getattr(case, "ranks", range(case.world_size)))


def is_distributed(case) -> bool:
    return len(_members(case)) >= 2


def facets(case) -> dict[str, bool]:
    """The places ``case`` reaches, among those that apply to its kind of case."""
    ranks = _members(case)
    multi = len(ranks) >= 2
    found = {MULTI_RANK: multi}
    if hasattr(case, "group"):
        found[PROPER_SUBGROUP] = case.group is not None and multi and len(ranks) < case.world_size
        found[RELABELLED] = multi and any(rank != i for i, rank in enumerate(ranks))
        if getattr(case, "rooted", False):
            found[RELABELLED_ROOT] = multi and ranks.index(case.root) != case.root
    if hasattr(case, "dtype"):
        found[f"{case.dtype} with data"] = multi and getattr(case, "numel", 1) > 0
    return found


def shares(cases: Iterable) -> dict[str, float]:
    """Per facet, the share of ``cases`` that reach it (dtypes: every dtype any case has)."""
    cases = list(cases)
    counts: dict[str, int] = {}
    for case in cases:
        for name, reached in facets(case).items():
            counts[name] = counts.get(name, 0) + int(reached)
    return {name: count / len(cases) for name, count in counts.items()}


def strategy_draws(strategy, n: int) -> list:
    """``n`` values of ``strategy`` as a grader's generation phase draws them (derandomized,
    without hypothesis's local constants), without running anything."""
    profiles.ignore_local_constants()
    drawn: list = []

    @settings(
        max_examples=n,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value):
        drawn.append(value)

    collect()
    return drawn


def property_draws(test, key: str) -> list:
    """The cases the grader ``test`` runs under the profile it was imported with, in order:
    its explicit examples, then what it generates, seeded as the plugin seeds it by ``key``."""
    profiles.ignore_local_constants()
    profiles.pin_seed(test, key)
    drawn: list = []
    handle = test.hypothesis
    inner, handle.inner_test = handle.inner_test, lambda *args, **kwargs: drawn.append(kwargs["case"])
    try:
        test(harness=None, impl=None)
    finally:
        handle.inner_test = inner
    return drawn


def given_strategy(test):
    """The strategy a grader draws its ``case`` from."""
    return test.hypothesis._given_kwargs["case"]
