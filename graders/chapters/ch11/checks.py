"""Chapter 11 judgements.

* ``RankLayout``: every rank's coordinates (the first name of ``order`` fastest) and the rank they
  give back (coords); the groups of each single dimension, as sorted lists in order of their
  first rank, partitioning the world (groups); the groups of several dimensions (combined).
* ``build_groups``: on every rank, the group returned for each entry holds exactly the ranks of
  that entry's group, and an all-reduce inside each of them sums its members' ranks.
* ``groups_crossing_nodes``: the groups of each dimension spanning more than one node.
* ``best_order``: a valid order whose crossing groups, busiest dimension first, are as few as
  any order's.
"""

from __future__ import annotations

import math

from graders.chapters.ch11 import reference
from graders.chapters.ch11.cases import DIMS
from graders.chapters.ch11.planner import reference as planning
from graders.judge.checks import fail
from graders.words.messages import say
from graders.words.text import number


def _groups_hint(case):
    return say("ch11:order:hint") if case.order != "tp-cp-ep-dp-pp" else say("ch11:groups:hint")


def assert_coords(run, case) -> None:
    got = run[0]
    if got["world_size"] != case.size:
        fail(say("ch11:world size", got=got["world_size"], expected=case.size), case, say("ch11:coords:hint"))
    for rank in range(case.size):
        expected = reference.coords(case, rank)
        if got["coords"][rank] != expected:
            said = {"rank": rank, "got": got["coords"][rank], "expected": expected}
            fail(say("ch11:coords", **said), case, say("ch11:coords:hint"))
        if got["back"][rank] != rank:
            said = {"coords": expected, "got": got["back"][rank], "rank": rank}
            fail(say("ch11:rank", **said), case, say("ch11:coords:hint"))


def _assert_groups(got, case, dims: str) -> None:
    expected = reference.groups(case, dims)
    if got != expected:
        shown = {"dims": dims, "got": _short(got), "expected": _short(expected)}
        fail(say("ch11:groups", **shown), case, _groups_hint(case))


def _short(groups) -> str:
    text = str(groups)
    return text if len(text) <= 200 else text[:200] + " …"


def assert_single_groups(run, case) -> None:
    for dim in DIMS:
        _assert_groups(run[0]["single"][dim], case, dim)


def assert_combined_groups(run, case) -> None:
    for dims in case.combined:
        _assert_groups(run[0]["combined"][dims], case, dims)


def assert_groups_built(run, case) -> None:
    """Membership on every rank, then the all-reduce inside every group."""
    assert_membership(run, case)
    assert_usable(run, case)


def assert_membership(run, case) -> None:
    for rank in range(case.size):
        for entry in case.entries:
            got = run[rank]["members"].get(entry)
            expected = next(g for g in reference.groups(case, entry) if rank in g)
            if got is None:
                fail(say("ch11:no group", rank=rank, entry=entry), case, say("ch11:build:hint"))
            if sorted(got) != expected:
                said = {"rank": rank, "entry": entry, "got": got, "expected": expected}
                fail(say("ch11:membership", **said), case, say("ch11:build:hint"))


def assert_usable(run, case) -> None:
    for rank in range(case.size):
        for entry in case.entries:
            expected = sum(next(g for g in reference.groups(case, entry) if rank in g))
            got = run[rank]["sums"].get(entry)
            if got != expected:
                said = {"rank": rank, "entry": entry, "got": got, "expected": expected}
                fail(say("ch11:unusable", **said), case, say("ch11:build:hint"))


def assert_crossing(run, case) -> None:
    got, expected = run[0], reference.crossing(case)
    if not isinstance(got, dict) or set(got) != set(DIMS):
        fail(say("ch11:crossing keys", got=_short(got)), case, say("ch11:crossing:hint"))
    for dim in DIMS:
        if got[dim] != expected[dim]:
            said = {"dim": dim, "got": _short(got[dim]), "expected": _short(expected[dim])}
            fail(say("ch11:crossing", **said), case, say("ch11:crossing:hint"))


def assert_best_order(run, case) -> None:
    order = run[0]
    if not isinstance(order, str) or sorted(order.split("-")) != sorted(DIMS):
        fail(say("ch11:not an order", got=repr(order)), case, say("ch11:best order:hint"))
    got, best = reference.crossing_counts(case, order), reference.best_counts(case)
    if got != best:
        said = {"order": order, "got": list(got), "best": list(best)}
        fail(say("ch11:best order", **said), case, say("ch11:best order:hint"))


# -- planner.py ---------------------------------------------------------------------------------------

#: the student's plan may be this much slower than the best one
PLAN_SLACK = 1.10


def _number(got, case, hint: str) -> float:
    if not isinstance(got, int | float) or isinstance(got, bool):
        fail(say("ch11:not a number", got=repr(got)), case, say(hint))
    return got


def _close(got: float, expected: float) -> bool:
    return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def assert_memory(run, case) -> None:
    got, expected = _number(run[0], case, "ch11:memory:hint"), planning.memory(case.plan, case)
    if not _close(got, expected):
        fail(
            say("ch11:memory", got=number(got, ".6g"), expected=number(expected, ".6g")),
            case,
            say("ch11:memory:hint"),
        )


def assert_time(run, case) -> None:
    got, expected = _number(run[0], case, "ch11:time:hint"), planning.time(case.plan, case)
    if not _close(got, expected):
        fail(
            say("ch11:time", got=number(got, ".6g"), expected=number(expected, ".6g")),
            case,
            say("ch11:time:hint"),
        )


def assert_plan(run, case) -> None:
    got = run[0]
    if "raised" in got:
        fail(
            say("ch11:plan refused", why=got["raised"], best=number(case.best, ".4g")),
            case,
            say("ch11:plan:hint"),
        )
    chosen = got["returned"]
    if not isinstance(chosen, dict) or not planning.valid(chosen, case):
        fail(say("ch11:plan invalid", got=chosen), case, say("ch11:plan:hint"))
    needed, limit = planning.memory(chosen, case), case.cluster["memory_gb"] * 1e9
    if needed > limit:
        fail(
            say("ch11:plan too big", gb=number(needed / 1e9, ".3g"), limit=case.cluster["memory_gb"]),
            case,
            say("ch11:memory:hint"),
        )
    took = planning.time(chosen, case)
    if took > PLAN_SLACK * case.best:
        said = {
            "time": number(took, ".4g"),
            "best": number(case.best, ".4g"),
            "slack": number(PLAN_SLACK - 1, ".0%"),
        }
        fail(say("ch11:plan slow", **said), case, say("ch11:plan:hint"))


def assert_infeasible(run, case) -> None:
    got = run[0]
    if "raised" not in got:
        fail(say("ch11:plan accepted", got=got.get("returned")), case, say("ch11:infeasible:hint"))
