"""Trace analysis: message matching, unmatched messages, rounds on the critical path."""

from graders.comm.trace import Event, Traces


def ev(op, peer, nbytes=4):
    return Event(op, nbytes, peer, (0, 1, 2, 3), 0, "")


def chain(n):
    per_rank = [[] for _ in range(n)]
    for r in range(n - 1):
        per_rank[r].append(ev("send", r + 1))
        per_rank[r + 1].append(ev("recv", r))
    # receives come before sends on each middle rank
    return Traces([sorted(events, key=lambda e: e.op != "recv") for events in per_rank])


def test_binomial_tree_takes_log_rounds():
    traces = Traces(
        [
            [ev("send", 2), ev("send", 1)],
            [ev("recv", 0)],
            [ev("recv", 0), ev("send", 3)],
            [ev("recv", 2)],
        ]
    )
    assert traces.rounds() == 2
    assert not traces.unmatched()


def test_chain_and_flat_tree_take_n_minus_one_rounds():
    assert chain(4).rounds() == 3
    flat = Traces(
        [[ev("recv", 1), ev("recv", 2), ev("recv", 3)], [ev("send", 0)], [ev("send", 0)], [ev("send", 0)]]
    )
    assert flat.rounds() == 3


def test_unmatched_messages_are_listed():
    traces = Traces([[ev("isend", 1)], []])
    assert traces.unmatched() == ["rank 0 sent 1 message(s) to rank 1, which received 0"]


def test_bytes_and_peers():
    traces = Traces([[ev("send", 1, 8), ev("isend", 1, 4), ev("recv", 3)], [], [], []])
    assert traces.bytes_sent(0) == 12
    assert traces.sends_by_peer(0) == {1: 2}
