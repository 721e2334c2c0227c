"""Structural checks on communication traces: who talks to whom, how much, in how many rounds.

``ranks`` is always the group's global ranks in group-rank order; checks only look at those.
Each failure names the rank and the lesson it breaks, and shows the trace it judged as a
picture, one row per rank and one column per step (:mod:`graders.comm.trace_picture`; a PNG too
with ``--png`` or a report).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from graders.comm import trace_picture
from graders.comm.trace import Traces
from graders.judge import checks
from graders.words.messages import say
from graders.words.text import Text


def fail(traces: Traces, message: Text, case=None, hint: Text | str = "") -> None:
    """:func:`graders.judge.checks.fail`, with the picture of ``traces``."""
    checks.fail(message, case, hint, picture=trace_picture.picture(traces))


def assert_ring_neighbours_only(traces: Traces, ranks: Sequence[int], case=None) -> None:
    """Every send goes to the right neighbour, every receive comes from the left one."""
    n = len(ranks)
    for i, rank in enumerate(ranks):
        right, left = ranks[(i + 1) % n], ranks[(i - 1) % n]
        for peer, count in sorted(traces.sends_by_peer(rank).items()):
            if peer != right:
                fail(
                    traces,
                    say("ring:sent off the ring", rank=rank, count=count, peer=peer, right=right),
                    case,
                    say("ring:sent off the ring:hint"),
                )
        for event in traces[rank]:
            if event.is_recv and event.peer != left:
                fail(traces, say("ring:received off the ring", rank=rank, peer=event.peer, left=left), case)


def _sends(traces: Traces, rank: int) -> list:
    return [e for e in traces[rank] if e.is_send]


def _count_messages(sends: list, expected: int, at_most: int | None) -> tuple[bool, Text]:
    """Whether ``sends`` has exactly ``expected`` messages that carry data and at most
    ``at_most`` (default ``expected``) in all, and how to say what it has."""
    with_data = sum(1 for e in sends if e.nbytes > 0)
    ok = with_data == expected and len(sends) <= (expected if at_most is None else at_most)
    empty = len(sends) - with_data
    seen = say("messages:with data", count=with_data)
    if empty:
        seen += say("messages:and empty", count=empty)
    return ok, seen


def assert_send_count(
    traces: Traces,
    ranks: Sequence[int],
    expected: int,
    case=None,
    hint: str = "",
    *,
    at_most: int | None = None,
) -> None:
    """Each rank sends exactly ``expected`` messages that carry data, and no more than ``at_most``
    messages in all: a message with nothing in it may be sent or skipped."""
    for rank in ranks:
        ok, seen = _count_messages(_sends(traces, rank), expected, at_most)
        if not ok:
            fail(traces, say("messages:per rank", rank=rank, seen=seen, expected=expected), case, hint)


def assert_bytes_sent_at_most(
    traces: Traces, ranks: Sequence[int], bound: int | Callable[[int], int], case=None, hint: str = ""
) -> None:
    for rank in ranks:
        limit = bound(rank) if callable(bound) else bound
        sent = traces.bytes_sent(rank)
        if sent > limit:
            fail(traces, say("bytes:sent at most", rank=rank, sent=sent, limit=limit), case, hint)


def assert_bytes_sent_at_least(
    traces: Traces, ranks: Sequence[int], bound: int | Callable[[int], int], case=None, hint: str = ""
) -> None:
    """Each rank sends at least ``bound`` bytes: what the others cannot do without."""
    for rank in ranks:
        need = bound(rank) if callable(bound) else bound
        sent = traces.bytes_sent(rank)
        if sent < need:
            fail(traces, say("bytes:sent at least", rank=rank, sent=sent, need=need), case, hint)


def assert_bytes_received_at_least(
    traces: Traces, ranks: Sequence[int], bound: int | Callable[[int], int], case=None, hint: str = ""
) -> None:
    """Each rank receives at least ``bound`` bytes: the data it cannot have otherwise."""
    for rank in ranks:
        need = bound(rank) if callable(bound) else bound
        received = traces.bytes_received(rank)
        if received < need:
            fail(traces, say("bytes:received at least", rank=rank, received=received, need=need), case, hint)


def assert_bytes_sent_per_dst_at_least(
    traces: Traces, ranks: Sequence[int], minimum: Callable[[int, int], int], case=None, hint: str = ""
) -> None:
    """Every rank ``src`` sends every other rank ``dst`` at least ``minimum(src, dst)`` bytes."""
    for src in ranks:
        sent: dict[int, int] = {}
        for event in _sends(traces, src):
            sent[event.peer] = sent.get(event.peer, 0) + event.nbytes
        for dst in ranks:
            need = minimum(src, dst) if dst != src else 0
            if sent.get(dst, 0) < need:
                said = {"src": src, "sent": sent.get(dst, 0), "dst": dst, "need": need}
                fail(traces, say("bytes:sent to each", **said), case, hint)


def assert_total_messages(
    traces: Traces,
    ranks: Sequence[int],
    expected: int,
    case=None,
    hint: str = "",
    *,
    at_most: int | None = None,
) -> None:
    """Exactly ``expected`` messages that carry data over all ranks, at most ``at_most`` in all."""
    ok, seen = _count_messages([e for r in ranks for e in _sends(traces, r)], expected, at_most)
    if not ok:
        fail(traces, say("messages:in total", seen=seen, n=len(ranks), expected=expected), case, hint)


def assert_rounds_at_most(traces: Traces, bound: int, case=None, hint: str = "") -> None:
    rounds = traces.rounds()
    if rounds > bound:
        fail(traces, say("rounds at most", rounds=rounds, bound=bound), case, hint)


def assert_no_self_messages(traces: Traces, ranks: Sequence[int], case=None) -> None:
    for rank in ranks:
        if traces.sends_by_peer(rank).get(rank):
            fail(traces, say("self message", rank=rank), case)


def assert_star(traces: Traces, ranks: Sequence[int], hub: int, case=None, hint: str = "") -> None:
    """Every point-to-point message has ``hub`` at one end (a parameter server's pattern)."""
    for rank in ranks:
        if rank == hub:
            continue
        for event in traces[rank]:
            if event.is_p2p and event.peer != hub:
                said = {"rank": rank, "nbytes": event.nbytes, "peer": event.peer, "hub": hub}
                message = say("star:sent", **said) if event.is_send else say("star:received", **said)
                fail(traces, message, case, hint)


def assert_traffic_at_most(
    traces: Traces, ranks: Sequence[int], bound: int | Callable[[int], int], case=None, hint: str = ""
) -> None:
    """Bytes each rank sent plus bytes it received, by point-to-point calls, stay within ``bound``."""
    for rank in ranks:
        limit = bound(rank) if callable(bound) else bound
        moved = traces.bytes_sent(rank) + traces.bytes_received(rank)
        if moved > limit:
            fail(traces, say("bytes:moved at most", rank=rank, moved=moved, limit=limit), case, hint)
