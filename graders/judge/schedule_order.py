"""A pipeline runs the schedule it is given: the order of its forwards and backwards, checked.

A stage's schedule row is a list of actions ``("F", mb)`` / ``("B", mb)``. What the stage did
comes from a :class:`graders.training.schedule_meter.ScheduleMeter` on the modules it runs
through: per module, ``["F", k]`` as its ``k``-th forward starts and ``["B", k]`` as the backward
through that forward starts, and the most forwards whose activations were alive at once. The k-th
forward is the schedule's k-th F, so the record reads as actions; it must be the row itself:

* as many forwards as the row has (one more is a recomputation, which the contract asks for only
  where it says so; one fewer skips a microbatch or goes around the module);
* the same actions in the same order, each backward after its own forward;
* as many microbatches in flight at the peak as the row has: more holds what it could free, fewer
  means a forward kept nothing for its backward (run under ``no_grad``, then recomputed).
"""

from __future__ import annotations

from collections.abc import Sequence

from graders.judge.checks import fail
from graders.words.messages import say
from graders.words.text import Text


def in_flight_peak(row: Sequence[Sequence]) -> int:
    """The most microbatches a stage holds following ``row`` (forwards done minus backwards)."""
    held = peak = 0
    for action in row:
        held += 1 if action[0] == "F" else -1
        peak = max(peak, held)
    return peak


def one_f_one_b_row(stages: int, m: int, stage: int) -> list[tuple[str, int]]:
    """The textbook 1F1B row of ``stage``: ``min(stages - stage - 1, m)`` warm-up forwards, then one
    forward and one backward in turn, then the cool-down backwards (chapter 7's shape)."""
    warmup = min(stages - stage - 1, m)
    row = [("F", mb) for mb in range(warmup)]
    for i in range(m - warmup):
        row += [("F", warmup + i), ("B", i)]
    return row + [("B", mb) for mb in range(m - warmup, m)]


def _label(kind: str, mb) -> str:
    return f"{kind}{mb}"


def as_actions(order: list, row: Sequence[Sequence]) -> list[str]:
    """The recorded ``order`` as the row's labels: the k-th forward is the row's k-th F."""
    forwards = [action[1] for action in row if action[0] == "F"]
    return [_label(kind, forwards[k] if 0 <= k < len(forwards) else "?") for kind, k in order]


def assert_follows_schedule(record: dict, row: Sequence[Sequence], *, who: Text, case, hint) -> None:
    """``record`` (one module's meter) ran ``row``: its forwards once each, in the row's order,
    with the row's peak of microbatches in flight. ``who`` names the stage or block."""
    if not record.get("intact", True):
        fail(say("order:hooks removed", who=who), case, hint)
    expected = [_label(action[0], action[1]) for action in row]
    m = sum(1 for action in row if action[0] == "F")
    calls = record["forwards"]
    if calls > m:
        fail(say("order:forwards recomputed", who=who, calls=calls, m=m), case, hint)
    if calls < m:
        fail(say("order:forwards missing", who=who, calls=calls, m=m), case, hint)
    done = as_actions(record["order"], row)
    if done != expected:
        differs = (i for i, (a, b) in enumerate(zip(done, expected, strict=False)) if a != b)
        i = next(differs, min(len(done), len(expected)))
        got = done[i] if i < len(done) else "—"
        want = expected[i] if i < len(expected) else "—"
        said = {
            "who": who,
            "i": i + 1,
            "got": got,
            "want": want,
            "ran": " ".join(done),
            "row": " ".join(expected),
        }
        fail(say("order:not the schedule", **said), case, hint)
    peak, bound = record["peak"], in_flight_peak(row)
    if peak < bound:
        fail(say("order:too few in flight", who=who, peak=peak, bound=bound), case, hint)
    if peak > bound:
        fail(say("order:too many in flight", who=who, peak=peak, bound=bound), case, hint)
