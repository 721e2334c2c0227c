"""Driver side: a chapter's memory promise, stated against what the live ledger measured.

A chapter declares its promise as a list of :class:`LivePromise` (see ``CONTRIBUTING.md``).
Each names one quantity that :class:`~graders.training.measured_training.MeasuredTraining` measured
on every rank:

* a role: ``kept`` (alive between steps, the model's own tensors aside), ``state`` (born in
  a step and alive one step later), ``at_forward_end``, ``grads_at_backward_end``,
  ``on_the_wire`` (the most bytes asynchronous collectives held at once);
* ``peak:<phase>``: the most bytes alive at any operator of that phase;
* ``fresh:<phase>``: the most bytes born in one step's phase alive at once;
* ``gathered:<phase>``: the most bytes of all-gather outputs alive at once in that phase.

and the most bytes it may reach on each rank (``per_rank``, a function of that rank's
measurements, so limits can be written as the single-device figures the same ledger measured
plus what the lesson allows) and, where a partition promises that each element lives on one
rank only, summed over the ranks (``total``). A broken promise fails with where the peak
happened, the rank, and one bar per promise and rank (a PNG of them too, with ``--png`` or a
report).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from graders.judge.checks import fail
from graders.judge.figures import Picture
from graders.training.ledger import bars_picture
from graders.words.messages import say
from graders.words.numbers import format_number
from graders.words.text import Text, each_lang


@dataclass(frozen=True)
class LivePromise:
    quantity: str  # "kept", "state", "at_forward_end", "peak:forward", "fresh:backward", ...
    label: str  # its bar in the picture: "kept between steps" (a Text from say(), like what and hint)
    what: str  # what the lesson promises, for the message
    per_rank: Callable[[Mapping], int]  # one rank's live summary -> bytes allowed on that rank
    total: int | None = None  # bytes allowed summed over the ranks
    hint: str = ""


def single_device_activations(live: Mapping, quantity: str) -> int:
    """What a single device held at ``quantity`` (``forward``, ``at_forward_end``...) beyond
    its parameters: activations and saved tensors, measured on the same rows."""
    return live["plain"][quantity] - live["plain"]["setup"]


def _role_said(quantity: str) -> Text | str:
    """What a role's bytes are, in words (the quantity's own name when it has none)."""
    said = {
        "kept": say("live:kept"),
        "state": say("live:state"),
        "at_forward_end": say("live:at_forward_end"),
        "grads_at_backward_end": say("live:grads_at_backward_end"),
        "on_the_wire": say("live:on_the_wire"),
    }
    return said.get(quantity, quantity)


def _peak_said(kind: str, phase: str) -> Text:
    if kind == "fresh":
        return say("live:fresh", phase=phase)
    if kind == "gathered":
        return say("live:gathered", phase=phase)
    return say("live:peak", phase=phase)


def measured(live: Mapping, quantity: str) -> tuple[int, Text | str]:
    """``(bytes, what they are)`` of ``quantity`` in one rank's live summary."""
    if quantity.startswith(("peak:", "fresh:", "gathered:")):
        key = quantity.removeprefix("peak:")
        peak = live["peaks"].get(key, {"bytes": 0, "where": ""})
        kind, _, phase = key.rpartition(":")
        return peak["bytes"], _peak_said(kind, phase) + (f" ({peak['where']})" if peak["where"] else "")
    value = live["roles"].get(quantity, 0)
    where = ""
    if isinstance(value, Mapping):  # measured with its place: {"bytes": ..., "where": ...}
        value, where = value["bytes"], value["where"]
    return value, _role_said(quantity) + (f" ({where})" if where else "")


def broken_on_a_rank(lives: Mapping[int, Mapping], promise: LivePromise) -> Text | None:
    """The message for the first rank over ``promise``'s per-rank limit; None when none is."""
    for rank, live in sorted(lives.items()):
        got, said = measured(live, promise.quantity)
        limit = promise.per_rank(live)
        if got > limit:
            return say("promise:on a rank", rank=rank, got=got, said=said, what=promise.what, limit=limit)
    return None


def broken_in_total(lives: Mapping[int, Mapping], promise: LivePromise) -> Text | None:
    """The message when the ranks together are over ``promise``'s total; None when they are not."""
    if promise.total is None:
        return None
    values = {rank: measured(live, promise.quantity)[0] for rank, live in sorted(lives.items())}
    total = sum(values.values())
    if total <= promise.total:
        return None
    shares = each_lang(
        lambda lang: ", ".join(
            f"rank {rank}: {format_number(got, ',', lang)}" for rank, got in values.items()
        )
    )
    said = _role_said(promise.quantity)
    return say(
        "promise:in total",
        total=total,
        said=said,
        shares=shares,
        what=promise.what,
        limit=promise.total,
        n=len(values),
    )


def assert_live_promises(
    lives: Mapping[int, Mapping], promises: Sequence[LivePromise], title: str, case
) -> None:
    """Fail on the first promise broken on one rank, then on the first broken summed over the
    ranks, with every promise drawn as bars."""
    for broken in (broken_on_a_rank, broken_in_total):
        for promise in promises:
            message = broken(lives, promise)
            if message is not None:
                fail(title + ": " + message, case, promise.hint, picture=_picture(lives, promises, title))


def _picture(lives: Mapping[int, Mapping], promises: Sequence[LivePromise], title: str) -> Picture:
    ledgers = {
        rank: {p.label: measured(live, p.quantity)[0] for p in promises} for rank, live in lives.items()
    }
    limits = {p.label: {rank: p.per_rank(live) for rank, live in lives.items()} for p in promises}
    totals = {p.label: p.total for p in promises if p.total is not None}
    labels = [p.label for p in promises]
    return bars_picture(say("promise:picture", title=title), ledgers, limits, labels=labels, totals=totals)
