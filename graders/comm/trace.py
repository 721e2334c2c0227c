"""Driver side: reading communication traces recorded in the workers.

A trace is, per rank, the ordered list of :class:`Event` the student's code issued. Point-to-point
events are matched into :class:`Message` s (the k-th send from a to b with the k-th receive on b
from a, as gloo delivers them in order per pair), which the structural checks reason about.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import NamedTuple

SENDS = ("send", "isend")
RECVS = ("recv", "irecv")
#: Families of collectives, by every ``torch.distributed`` name that performs them.
ALL_REDUCES = ("all_reduce", "all_reduce_coalesced")
ALL_GATHERS = ("all_gather", "all_gather_into_tensor", "all_gather_single", "all_gather_coalesced")
REDUCE_SCATTERS = ("reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_single")


class Event(NamedTuple):
    op: str
    nbytes: int
    peer: int  # global rank of the peer (p2p) or root (rooted collectives); -1 when none
    group: tuple[int, ...]
    t_ns: int
    site: str

    @property
    def is_send(self) -> bool:
        return self.op in SENDS

    @property
    def is_recv(self) -> bool:
        return self.op in RECVS

    @property
    def is_mark(self) -> bool:
        """A marker the task inserted with ``ctx.mark(label)`` (not a call)."""
        return self.op.startswith("mark:")

    @property
    def is_ready(self) -> bool:
        """The gradient of a parameter became complete (``ready:<name>``, from a kit hook): not a
        call, and not a phase boundary."""
        return self.op.startswith("ready:")

    @property
    def is_p2p(self) -> bool:
        return self.is_send or self.is_recv


def parse(raw: list) -> list[Event]:
    return [Event(str(e[0]), int(e[1]), int(e[2]), tuple(e[3]), int(e[4]), str(e[5])) for e in raw]


@dataclass(frozen=True)
class Message:
    src: int
    dst: int
    nbytes: int
    send_index: int  # position of the send in the sender's trace
    recv_index: int  # position of the receive in the receiver's trace (-1: never received)


class Traces:
    """All ranks' traces of one task, indexed by global rank."""

    def __init__(self, per_rank: list[list[Event]]) -> None:
        self.per_rank = per_rank

    def __getitem__(self, rank: int) -> list[Event]:
        return self.per_rank[rank]

    def __len__(self) -> int:
        return len(self.per_rank)

    # -- simple views ------------------------------------------------------------------------
    def ops(self, rank: int) -> list[str]:
        return [e.op for e in self.per_rank[rank]]

    def calls(self, rank: int, *ops: str) -> list[Event]:
        return [e for e in self.per_rank[rank] if e.op in ops]

    def count(self, op: str) -> int:
        return sum(1 for events in self.per_rank for e in events if e.op == op)

    def phases(self, rank: int, *, with_ready: bool = False) -> list[tuple[str, list[Event]]]:
        """The rank's calls cut at its marks: ``(label of the mark that ends it, calls)`` in order.

        Calls after the last mark form a final phase labelled ``""``. With marks
        ``backward_end`` and ``step_end`` once per training step, the calls issued during
        step k's backward are the calls of the k-th phase labelled ``backward_end``.
        ``with_ready`` keeps the gradient-ready events among the calls, in time order.
        """
        phases: list[tuple[str, list[Event]]] = []
        current: list[Event] = []
        for event in self.per_rank[rank]:
            if event.is_mark:
                phases.append((event.op.split(":", 1)[1], current))
                current = []
            elif with_ready or not event.is_ready:
                current.append(event)
        if current:
            phases.append(("", current))
        return phases

    def phase(self, rank: int, label: str, *, with_ready: bool = False) -> list[list[Event]]:
        """The calls of every phase of ``rank`` ended by a mark ``label``, in order."""
        return [events for name, events in self.phases(rank, with_ready=with_ready) if name == label]

    def bytes_received(self, rank: int) -> int:
        return sum(e.nbytes for e in self.per_rank[rank] if e.is_recv)

    def bytes_sent(self, rank: int) -> int:
        return sum(e.nbytes for e in self.per_rank[rank] if e.is_send)

    def sends_by_peer(self, rank: int) -> Counter:
        return Counter(e.peer for e in self.per_rank[rank] if e.is_send)

    def banned(self) -> list[tuple[int, Event]]:
        return [
            (r, e) for r, events in enumerate(self.per_rank) for e in events if e.op.startswith("banned:")
        ]

    def collectives(self) -> list[tuple[int, Event]]:
        return [
            (r, e)
            for r, events in enumerate(self.per_rank)
            for e in events
            if not (e.is_send or e.is_recv or e.op.startswith(("banned:", "mark:", "ready:")))
        ]

    # -- message matching --------------------------------------------------------------------
    def messages(self) -> list[Message]:
        """Pair sends with receives per (src, dst) in issue order."""
        recv_queues: dict[tuple[int, int], list[int]] = defaultdict(list)
        for dst, events in enumerate(self.per_rank):
            for index, event in enumerate(events):
                if event.is_recv:
                    recv_queues[(event.peer, dst)].append(index)
        sent_so_far: Counter = Counter()
        messages = []
        for src, events in enumerate(self.per_rank):
            for index, event in enumerate(events):
                if not event.is_send:
                    continue
                pair = (src, event.peer)
                k = sent_so_far[pair]
                sent_so_far[pair] += 1
                queue = recv_queues.get(pair, [])
                messages.append(
                    Message(src, event.peer, event.nbytes, index, queue[k] if k < len(queue) else -1)
                )
        return messages

    def unmatched(self) -> list[str]:
        """Sends nobody received and receives nobody sent: left in flight, they poison the world."""
        sends: Counter = Counter()
        recvs: Counter = Counter()
        for rank, events in enumerate(self.per_rank):
            for event in events:
                if event.is_send:
                    sends[(rank, event.peer)] += 1
                elif event.is_recv:
                    recvs[(event.peer, rank)] += 1
        problems = []
        for pair in sorted(set(sends) | set(recvs)):
            if sends[pair] != recvs[pair]:
                src, dst = pair
                problems.append(
                    f"rank {src} sent {sends[pair]} message(s) to rank {dst}, which received {recvs[pair]}"
                )
        return problems

    def rounds(self) -> int:
        """Communication rounds on the critical path (a Lamport clock over the messages).

        Every send or receive takes one round of its rank (a rank handles one message per
        round), and a receive completes no earlier than the round of its matching send. The
        answer is the largest clock: a binomial tree over N ranks needs ceil(log2 N), a chain
        or a root that talks to every rank in turn needs N - 1.
        """
        clocks = [0] * len(self.per_rank)
        stamps: dict[tuple[int, int], int] = {}
        by_recv = {(m.dst, m.recv_index): m for m in self.messages() if m.recv_index >= 0}
        by_send = {(m.src, m.send_index): m for m in by_recv.values()}
        positions = [0] * len(self.per_rank)
        progressed = True
        while True:
            if not progressed:
                # Only asynchronous receives can be blocked now: let the first one through.
                stuck = [r for r, ev in enumerate(self.per_rank) if positions[r] < len(ev)]
                stuck = [r for r in stuck if self.per_rank[r][positions[r]].op == "irecv"]
                if not stuck:
                    break
                positions[stuck[0]] += 1
            progressed = False
            for rank, events in enumerate(self.per_rank):
                while positions[rank] < len(events):
                    index = positions[rank]
                    event = events[index]
                    if event.is_send:
                        clocks[rank] += 1
                        message = by_send.get((rank, index))
                        if message is not None:
                            stamps[(message.dst, message.recv_index)] = clocks[rank]
                    elif event.is_recv:
                        key = (rank, index)
                        if key in by_recv and key not in stamps:
                            break  # its sender has not got there yet
                        clocks[rank] = max(clocks[rank] + 1, stamps.get(key, 0))
                    positions[rank] += 1
                    progressed = True
        return max(clocks, default=0)


def ceil_log2(n: int) -> int:
    return 0 if n <= 1 else math.ceil(math.log2(n))
