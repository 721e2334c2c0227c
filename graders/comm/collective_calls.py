"""Structural checks on the collectives of one phase: exactly the calls a lesson needs.

A phase is the calls between two of the task's marks (``forward_end``, ``backward_end``). A
call is named by its family (``all_reduce``, ``all_gather``, ``reduce_scatter``), whatever
``torch.distributed`` spelling performed it (``all_gather`` into a list or
``all_gather_into_tensor``), with the bytes this rank handed it and the group it ran on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from graders.comm.assertions import fail
from graders.comm.trace import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS, Event, Traces
from graders.words.messages import say
from graders.words.text import Text

FAMILIES = {"all_reduce": ALL_REDUCES, "all_gather": ALL_GATHERS, "reduce_scatter": REDUCE_SCATTERS}


def family_of(op: str) -> str:
    """``all_gather_into_tensor`` -> ``all_gather``; a call of no family keeps its name."""
    return next((name for name, ops in FAMILIES.items() if op in ops), op)


#: a call the lesson expects: (family, bytes this rank hands it)
Call = tuple[str, int]


def describe_calls(calls: Sequence[Call]) -> str:
    return ", ".join(f"{family} of {nbytes} B" for family, nbytes in sorted(calls)) or "none"


def phase_calls(traces: Traces, rank: int, label: str) -> list[Event]:
    """The calls of ``rank``'s first phase ended by the mark ``label`` (none when it is missing)."""
    phases = traces.phase(rank, label)
    return list(phases[0]) if phases else []


def assert_exact_calls(
    traces: Traces,
    ranks: Sequence[int],
    label: str,
    expected: Sequence[Call],
    case=None,
    hint: Text | str = "",
    *,
    direction: Text | str = "",
) -> None:
    """In the phase ended by ``label``, every rank of ``ranks`` (global, in group order) issues
    exactly the ``expected`` calls over that group, in any order, and nothing else: no other
    collective and no point-to-point message. A group of one rank may skip them (it has nobody
    to talk to), and issue nothing else."""
    group = tuple(ranks)
    want = Counter((family, nbytes, group) for family, nbytes in expected)
    for rank in ranks:
        events = phase_calls(traces, rank, label)
        got = Counter((family_of(e.op), e.nbytes, tuple(e.group)) for e in events)
        if len(ranks) == 1:
            ok = not (got - want)
        else:
            ok = got == want
        if ok:
            continue
        seen = [(family_of(e.op), e.nbytes) for e in events]
        other_group = [e for e in events if tuple(e.group) != group and e.group]
        said = {
            "rank": rank,
            "direction": direction or label,
            "expected": describe_calls(list(expected)),
            "got": describe_calls(seen),
        }
        message = say("calls:exactly", **said)
        if other_group:
            message = message + say("calls:other group", group=group, other=tuple(other_group[0].group))
        fail(traces, message, case, hint)
