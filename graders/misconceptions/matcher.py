"""Which known mutant a failing implementation behaves like, from their battery records.

Two records *agree* when their values are close and their traffic and failures are the same
(:func:`agree`). A mutant *matches* a student's code when, on every case where the code and the
reference disagree (at least one), the mutant agrees with the code (:func:`matching`: every
match, for the teacher's class table). The *closest* match is the one that agrees with the code
on the most cases, the catalogue's order breaking ties (:func:`closest`: the one a student's own
run names). Code that matches no mutant is "unrecognised": nothing is invented.
"""

from __future__ import annotations

import math

#: how close two values must be to agree
REL_TOL, ABS_TOL = 1e-3, 1e-5


def agree(a, b) -> bool:
    """Whether two records (or parts of them) agree: same structure, close numbers."""
    if isinstance(a, float) or isinstance(b, float):
        numbers = isinstance(a, int | float) and isinstance(b, int | float)
        if not numbers or isinstance(a, bool) or isinstance(b, bool):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(agree(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(agree(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _differs(student: dict, reference: dict) -> list[str]:
    """The cases (keys) where ``student``'s records disagree with ``reference``'s."""
    return [key for key, record in student.items() if key in reference and not agree(record, reference[key])]


def matching(student: dict, reference: dict, mutants: dict[str, dict]) -> list[str]:
    """The mutants (by name) that agree with ``student`` wherever it disagrees with ``reference``
    (records by case key, as :func:`graders.misconceptions.battery.run_battery` gives them)."""
    differs = _differs(student, reference)
    if not differs:
        return []
    return sorted(
        name
        for name, records in mutants.items()
        if all(key in records and agree(records[key], student[key]) for key in differs)
    )


def closest(student: dict, reference: dict, mutants: dict[str, dict]) -> str | None:
    """Of the mutants that match ``student`` (``mutants`` in the catalogue's order), the one that
    agrees with it on the most cases, the earlier on a tie; None when none matches."""
    differs = _differs(student, reference)
    if not differs:
        return None
    best = None
    for order, (name, records) in enumerate(mutants.items()):
        if not all(k in records and agree(records[k], student[k]) for k in differs):
            continue
        agreeing = sum(1 for k, r in student.items() if k in records and agree(records[k], r))
        if best is None or (-agreeing, order) < best[0]:
            best = ((-agreeing, order), name)
    return best[1] if best else None
