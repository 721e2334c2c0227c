"""Overlap as an order: each bucket is launched before the next gradient is computed.

Bucketed data parallelism (DDP, ZeRO-2) overlaps communication with backward by launching a
bucket's collective from the hook of its last gradient. The kit reports every gradient the
moment it is complete (``ready:<name>`` events, :func:`graders.training.report_gradients_ready`),
before the student's own hook for it runs, so the trace of a backward reads like::

    ready:head.weight  ready:down.bias  all_reduce  ready:down.weight  ...

and overlap is checked as what it is: whenever a gradient *starts* to be the newest one, every
bucket completed before it has been launched, whoever launched it (a hook, a tensor hook,
anything). Launching everything from an end-of-backward callback, or from
``finish_gradient_synchronization()``, fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graders.comm.trace import Event
from graders.words.messages import say
from graders.words.text import Text


@dataclass(frozen=True)
class LateBucket:
    bucket: int  # index into the buckets given
    launched: int  # collectives launched when it should have been
    completed: int  # buckets complete by then
    before: str  # the gradient that began to accumulate first ("" for the end of backward)


def late_bucket(
    events: Sequence[Event], buckets: Sequence[frozenset[str]], launches: tuple[str, ...]
) -> LateBucket | None:
    """The first bucket not launched in time in one backward's ``events`` (with ready events).

    ``buckets`` are parameter names per bucket; a bucket with a name that never becomes ready
    (a parameter that gets no gradient) is never complete and never late. ``launches`` are the
    ops that launch a bucket (every spelling of all-reduce, say).
    """
    ready: set[str] = set()
    completed: list[int] = []
    launched = 0
    for event in events:
        if event.op in launches:
            launched += 1
        elif event.is_ready:
            if launched < len(completed):
                return LateBucket(completed[launched], launched, len(completed), event.op.split(":", 1)[1])
            ready.add(event.op.split(":", 1)[1])
            completed += [
                b for b, names in enumerate(buckets) if b not in completed and names and names <= ready
            ]
    if launched < len(completed):
        return LateBucket(completed[launched], launched, len(completed), "")
    return None


def describe_late(late: LateBucket, names: Sequence[str], collective: str) -> Text:
    """One sentence for a failure message: which bucket was late, and for what."""
    if late.before:
        when = say("late bucket:when accumulating", name=late.before)
    else:
        when = say("late bucket:when backward returned")
    said = {"launched": late.launched, "completed": late.completed, "collective": collective}
    return say("late bucket", names=", ".join(names), when=when, **said)


def unreported(events: Sequence[Event], expected: Iterable[str]) -> list[str]:
    """The parameters in ``expected`` whose gradient never showed as ready in ``events``: the
    kit's hooks were removed (the check above would then see no bucket complete)."""
    ready = {e.op.split(":", 1)[1] for e in events if e.is_ready}
    return sorted(set(expected) - ready)
