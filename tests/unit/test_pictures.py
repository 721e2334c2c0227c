"""Pictures of what a check saw: the trace diagram (rank × step), the memory bars, ``--png``."""

from types import SimpleNamespace

import pytest

from graders.comm import trace_picture
from graders.comm.assertions import assert_ring_neighbours_only
from graders.comm.trace import Event, Traces
from graders.errors import GradingFailure
from graders.impl import KIT_ROOT, Impl
from graders.judge import figures
from graders.misconceptions import mutants
from graders.plugin import pictures
from graders.training.memory_promises import LivePromise, assert_live_promises

needs_matplotlib = pytest.mark.skipif(
    not figures.matplotlib_available(), reason="matplotlib is not installed"
)


def ev(op, peer, nbytes=8, group=(0, 1, 2)):
    return Event(op, nbytes, peer, group, 0, "collectives.py:40 in f")


def ring_all_reduce(n=3, chunks=(12, 8, 8)):
    """A ring all-reduce of 7 float32 (chunks of 3, 2, 2 elements) as the solution traces it."""
    per_rank = []
    for r in range(n):
        events = []
        for s in range(n - 1):  # reduce-scatter: send chunk r - s, receive chunk r - s - 1
            events += [
                ev("isend", (r + 1) % n, chunks[(r - s) % n]),
                ev("irecv", (r - 1) % n, chunks[(r - s - 1) % n]),
            ]
        for s in range(n - 1):  # all-gather: pass the finished chunks on
            events += [
                ev("isend", (r + 1) % n, chunks[(r + 1 - s) % n]),
                ev("irecv", (r - 1) % n, chunks[(r - s) % n]),
            ]
        per_rank.append(events)
    return Traces(per_rank)


def test_a_ring_all_reduce_moves_one_chunk_one_hop_per_step():
    assert trace_picture.text(ring_all_reduce()).splitlines() == [
        "trace, one column per step (→r sent to rank r, ←r received from rank r, · nothing):",
        "           step 0        step 1        step 2        step 3        in all",
        "  rank 0 | →1 12B ←2 8B  →1 8B ←2 8B   →1 8B ←2 12B  →1 12B ←2 8B  →40B ←36B",
        "  rank 1 | →2 8B ←0 12B  →2 12B ←0 8B  →2 8B ←0 8B   →2 8B ←0 12B  →36B ←40B",
        "  rank 2 | →0 8B ←1 8B   →0 8B ←1 12B  →0 12B ←1 8B  →0 8B ←1 8B   →36B ←36B",
    ]


def _columns(traces):
    return [[(step.column, step.label()) for step in row] for row in trace_picture.layout(traces).rows]


def test_steps_follow_the_messages():
    tree = Traces(
        [[ev("send", 2), ev("send", 1)], [ev("recv", 0)], [ev("recv", 0), ev("send", 3)], [ev("recv", 2)]]
    )
    assert _columns(tree) == [  # a binomial tree: rank 2 forwards in the second step, with the root
        [(0, "→2 8B"), (1, "→1 8B")],
        [(1, "←0 8B")],
        [(0, "←0 8B"), (1, "→3 8B")],
        [(1, "←2 8B")],
    ]
    alternating = Traces(
        [[ev("send", 1), ev("recv", 2)], [ev("recv", 0), ev("send", 2)], [ev("send", 0), ev("recv", 1)]]
    )
    assert [[c for c, _ in row] for row in _columns(alternating)] == [
        [0, 1],
        [0, 1],
        [0, 1],
    ]  # blocking: one after the other
    direct = Traces([[ev("isend", 1), ev("isend", 2), ev("irecv", 1), ev("irecv", 2)], [], []])
    assert _columns(direct)[0] == [
        (0, "→1 8B? →2 8B? ←1 8B? ←2 8B?")
    ]  # non-blocking, distinct peers: one step
    late = Traces(
        [[ev("all_reduce", -1, 400), ev("isend", 1)], [ev("isend", 2), ev("all_reduce", -1, 400)], []]
    )
    columns = _columns(late)
    assert (
        columns[0][0] == columns[1][1] == (1, "all_reduce 400B")
    )  # a collective sits in one column on every member


def test_a_trace_too_big_or_empty_says_so():
    big = Traces([[ev("isend", 1)] * 30, [ev("irecv", 0)] * 30])
    assert (
        trace_picture.text(big)
        == "trace: 60 calls on 2 ranks, too many to draw here (at most 48 calls on 8 ranks)"
    )
    assert trace_picture.text(Traces([[], []])).startswith("trace: no rank called torch.distributed")
    assert trace_picture.picture(Traces([[], []])).draw is None


def test_long_traces_wrap_within_100_columns():
    text = trace_picture.text(ring_all_reduce(4, (4000, 4000, 4000, 4000)))
    assert max(map(len, text.splitlines())) <= 100
    assert sum(line.lstrip().startswith("step 0") for line in text.splitlines()) == 1
    assert any(line.lstrip().startswith("step 4") for line in text.splitlines())


def test_a_traffic_failure_shows_the_trace_and_carries_its_png():
    wrong = Traces([[ev("send", 2)], [], [ev("recv", 0)]])
    with pytest.raises(GradingFailure) as info:
        assert_ring_neighbours_only(wrong, [0, 1, 2], "case")
    message = str(info.value)
    assert message.index("example: 'case'") < message.index("  rank 0 | →2 8B") < message.index("hint:")
    assert [f.name for f in figures.figures_of(info.value)] == ["trace"]


def _promise_broken():
    lives = {0: {"roles": {"kept": 900}, "peaks": {}}, 1: {"roles": {"kept": 300}, "peaks": {}}}
    kept = LivePromise("kept", "kept between steps", "a partition", lambda live: 500, 1000, "keep your share")
    with pytest.raises(GradingFailure) as info:
        assert_live_promises(lives, [kept], "ZeRO-1, 2 ranks", "case")
    return info


def test_a_memory_failure_shows_the_bars_and_carries_their_png():
    info = _promise_broken()
    lines = str(info.value).splitlines()
    assert lines[0] == (
        "ZeRO-1, 2 ranks: rank 0: 900 bytes kept alive between two steps; the promise is a partition: "
        "at most 500."
    )
    assert lines[2].startswith("ZeRO-1, 2 ranks, live memory, bytes per rank")
    assert lines[3].startswith("rank 0  kept between steps  ████") and lines[3].endswith("900  > 500 ✗")
    assert lines[5].startswith("sum     kept between steps") and lines[5].endswith("1,200  > 1,000 ✗")
    assert str(info.value).rstrip().endswith("hint: keep your share")
    assert [f.name for f in figures.figures_of(info.value)] == ["memory"]


@needs_matplotlib
def test_the_pictures_draw_as_png(tmp_path):
    memory = _promise_broken()
    with pytest.raises(GradingFailure) as trace:
        assert_ring_neighbours_only(
            Traces([[ev("send", 2)], [], [ev("recv", 0)], [ev("isend", 0)]]), [0, 1, 2]
        )
    written = figures.render(
        figures.figures_of(memory.value) + figures.figures_of(trace.value), tmp_path, "t"
    )
    assert [p.name for p in written] == ["t-memory.png", "t-trace.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" and p.stat().st_size > 1000 for p in written)


def test_without_matplotlib_png_says_so_once(monkeypatch):
    monkeypatch.setattr(figures, "matplotlib_available", lambda: False)
    lines = []
    config = SimpleNamespace(getoption=lambda name: "out" if name == "dtlab_png" else None, stash={})
    pictures.png_summary(SimpleNamespace(write_line=lines.append), config, "en")
    assert len(lines) == 1 and "--png needs matplotlib" in lines[0]


def test_a_ring_mutant_fails_with_its_trace(harness, tmp_path):
    """A ring all-reduce that forwards the whole tensor: its ring part fails with its own trace."""
    mutant = next(m for m in mutants.load("ch2") if m.name == "all_reduce_sends_whole_tensor")
    impl = Impl.resolve(mutants.materialize(mutant, tmp_path))
    (ring_test,) = mutants.exercise_tests("ch2")[("ch2.ring_all_reduce", "ring")]
    with pytest.raises(GradingFailure) as info:
        ring_test(harness=harness, impl=impl)
    message = str(info.value)
    assert "needs at most" in message and "trace, one column per step" in message
    assert "  rank 0 | →1 " in message  # the whole tensor, to the right neighbour, every step
    assert [f.name for f in figures.figures_of(info.value)] == ["trace"]
    if figures.matplotlib_available():  # what --png DIR does with it
        item = SimpleNamespace(
            config=SimpleNamespace(getoption={"dtlab_png": str(tmp_path / "png")}.get, stash={}),
            path=KIT_ROOT / "exercises" / "ch2" / "test_collectives.py",
            name="test_ring_all_reduce_bandwidth",
        )
        pictures.write_pngs(item, info)
        (png,) = (tmp_path / "png").iterdir()
        assert png.name == "ch2.test_collectives.test_ring_all_reduce_bandwidth-trace.png"
        assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 1000
