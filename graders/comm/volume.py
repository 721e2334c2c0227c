"""How many bytes a traced call puts on the wire, with the ring algorithms of chapter 2.

The recorder stores, for a collective, the bytes this rank *hands to* the call: the whole
tensor of an all-reduce, the full input of a reduce-scatter, this rank's own piece of an
all-gather. These numbers are not comparable with one another: an all-reduce and a
reduce-scatter of the same gradient record the same bytes, yet the all-reduce sends twice as
much. :func:`ring_bytes_sent` converts a call into what a ring implementation sends from this
rank, so traffic bounds such as "ZeRO-1 sends no more than data parallelism" can be checked.
"""

from __future__ import annotations

from collections.abc import Iterable

from graders.comm.trace import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS, Event

__all__ = ["ALL_GATHERS", "ALL_REDUCES", "REDUCE_SCATTERS", "ring_bytes_sent", "wire_bytes", "of_family"]


def ring_bytes_sent(event: Event) -> float:
    """Bytes this rank sends for ``event`` when the collective runs as a ring over its group."""
    n = max(len(event.group), 1)
    if event.op in ALL_REDUCES:
        return 2 * (n - 1) / n * event.nbytes
    if event.op in REDUCE_SCATTERS:
        return (n - 1) / n * event.nbytes
    if event.op in ALL_GATHERS:
        return (n - 1) * event.nbytes
    if event.is_recv or event.is_mark or event.is_ready:
        return 0.0
    return float(event.nbytes)  # sends, broadcast, reduce, all-to-all: at most the payload


def wire_bytes(events: Iterable[Event]) -> float:
    return sum(ring_bytes_sent(e) for e in events)


def of_family(events: Iterable[Event], family: tuple[str, ...]) -> list[Event]:
    return [e for e in events if e.op in family]
