"""A picture of a trace: one row per rank, one column per communication step.

The ranks share no clock, so the steps are read off the order of each rank's calls:

* a step holds the non-blocking sends and receives (``isend``, ``irecv``, a batch) a rank
  issues before it waits, at most one of each kind per peer;
* a blocking ``send`` or ``recv`` ends the step it joins (what follows may use its data);
* a collective is a step of its own.

Columns then line the steps up across ranks: a step comes after the rank's previous one, a
receive sits no earlier than its matched send, and the k-th collective of a group sits in the
same column on every member. So a ring moves one chunk one hop per column, and a binomial tree
doubles the ranks holding the data per column. ``text`` is the terminal version (within 100
columns, wrapped into blocks of steps), ``render_png`` the PNG, ``picture`` both for a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from graders.comm.trace import Event, Traces
from graders.judge import figures
from graders.judge.figures import Picture
from graders.words.text import each_lang
from graders.words.vocabulary import t

MAX_RANKS = 8  # a bigger world, or a longer trace, is not drawn in the terminal
MAX_CALLS = 48  # a ring all-reduce over 4 ranks makes 48
MAX_PNG_RANKS = 16
MAX_PNG_CALLS = 400
WIDTH = 100
IDLE = "·"
UNMATCHED = "?"


@dataclass(frozen=True)
class Item:
    """One call in a step: ``kind`` is ``send``, ``recv`` or ``collective``."""

    kind: str
    op: str
    peer: int
    nbytes: int
    matched: bool = True

    def label(self) -> str:
        mark = "" if self.matched else UNMATCHED
        if self.kind == "send":
            return f"→{self.peer} {size(self.nbytes)}{mark}"
        if self.kind == "recv":
            return f"←{self.peer} {size(self.nbytes)}{mark}"
        root = f" root {self.peer}" if self.peer >= 0 else ""
        return f"{self.op}{root} {size(self.nbytes)}"


@dataclass
class Step:
    items: list[Item] = field(default_factory=list)
    column: int = 0

    def label(self) -> str:
        return " ".join(item.label() for item in self.items)


@dataclass(frozen=True)
class Arrow:
    """A message, for the PNG: from ``src`` in ``send_column`` to ``dst`` in ``recv_column``
    (``-1``: never received)."""

    src: int
    dst: int
    nbytes: int
    send_column: int
    recv_column: int


@dataclass(frozen=True)
class Layout:
    rows: list[list[Step]]  # per rank, its steps in order
    arrows: list[Arrow]
    sent: list[int]
    received: list[int]

    @property
    def columns(self) -> int:
        return 1 + max((s.column for row in self.rows for s in row), default=-1)


def size(nbytes: int) -> str:
    """Exact bytes, as the checks' messages count them; rounded only past 100,000."""
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if nbytes >= 100 * scale:
            return f"{nbytes // scale}{unit}"
    return f"{nbytes}B"


def _calls(events: list[Event]) -> list[tuple[int, Event]]:
    """``(index in the trace, event)`` of the calls: marks, readiness and refusals left out."""
    return [(i, e) for i, e in enumerate(events) if not e.op.startswith(("mark:", "ready:", "banned:"))]


def call_count(traces: Traces) -> int:
    return sum(len(_calls(events)) for events in traces.per_rank)


def _steps_of(calls: list[tuple[int, Event]], matched: set[int]) -> tuple[list[Step], dict[int, int]]:
    """The rank's steps, and the step of each call (by its index in the trace)."""
    steps: list[Step] = []
    step_of: dict[int, int] = {}
    open_keys: set[tuple[str, int]] | None = None  # what the open step already holds
    for index, event in calls:
        if event.is_p2p:
            kind = "send" if event.is_send else "recv"
            key = (kind, event.peer)
            if open_keys is None or key in open_keys:
                steps.append(Step())
                open_keys = set()
            open_keys.add(key)
            steps[-1].items.append(Item(kind, event.op, event.peer, event.nbytes, index in matched))
            if event.op in ("send", "recv"):  # blocking: the next call may use what it carried
                open_keys = None
        else:
            steps.append(Step([Item("collective", event.op, event.peer, event.nbytes)]))
            open_keys = None
        step_of[index] = len(steps) - 1
    return steps, step_of


def layout(traces: Traces) -> Layout:
    """Every rank's steps, with the column each sits in, and the messages between them."""
    messages = traces.messages()
    matched: list[set[int]] = [set() for _ in traces.per_rank]  # per rank, its calls with a partner
    for m in messages:
        if m.recv_index >= 0:
            matched[m.src].add(m.send_index)
            matched[m.dst].add(m.recv_index)
    rows, step_of = [], []
    for rank, events in enumerate(traces.per_rank):
        steps, where = _steps_of(_calls(events), matched[rank])
        rows.append(steps)
        step_of.append(where)
    after: dict[tuple[int, int], list[tuple[int, int]]] = {}  # (rank, step) sits no earlier than these
    for m in messages:
        if m.recv_index >= 0:
            after.setdefault((m.dst, step_of[m.dst][m.recv_index]), []).append(
                (m.src, step_of[m.src][m.send_index])
            )
    for members in _collectives(traces, step_of).values():
        for member in members:
            after.setdefault(member, []).extend(other for other in members if other != member)
    _place(rows, after)
    arrows = [
        Arrow(
            m.src,
            m.dst,
            m.nbytes,
            rows[m.src][step_of[m.src][m.send_index]].column,
            rows[m.dst][step_of[m.dst][m.recv_index]].column if m.recv_index >= 0 else -1,
        )
        for m in messages
    ]
    ranks = range(len(traces))
    return Layout(
        rows, arrows, [traces.bytes_sent(r) for r in ranks], [traces.bytes_received(r) for r in ranks]
    )


def _collectives(traces: Traces, step_of) -> dict[tuple, list[tuple[int, int]]]:
    """``(group, k)`` -> the steps of the k-th collective on that group, one per member."""
    found: dict[tuple, list[tuple[int, int]]] = {}
    for rank, events in enumerate(traces.per_rank):
        seen: dict[tuple, int] = {}
        for index, event in _calls(events):
            if not event.is_p2p:
                k = seen.get(event.group, 0)
                seen[event.group] = k + 1
                found.setdefault((event.group, k), []).append((rank, step_of[rank][index]))
    return found


def _place(rows: list[list[Step]], after: dict) -> None:
    """Give every step the smallest column the constraints allow (longest paths, by relaxation);
    if they cannot all hold (a cycle, which a trace that finished cannot have), program order."""
    total = sum(len(row) for row in rows)
    for row in rows:
        for k, step in enumerate(row):
            step.column = k
    for _ in range(total + 1):
        changed = False
        for rank, row in enumerate(rows):
            for k, step in enumerate(row):
                want = max(
                    [row[k - 1].column + 1 if k else 0]
                    + [rows[r][j].column for r, j in after.get((rank, k), ())]
                )
                if want > step.column:
                    step.column, changed = want, True
        if not changed:
            return
    for row in rows:
        for k, step in enumerate(row):
            step.column = k


# -- the terminal -------------------------------------------------------------------------------


def too_big(traces: Traces, max_ranks: int = MAX_RANKS, max_calls: int = MAX_CALLS, lang: str = "en") -> str:
    """Why ``traces`` is not drawn ("" when it is)."""
    calls = call_count(traces)
    if len(traces) > max_ranks or calls > max_calls:
        return t(
            "trace:too big", lang, calls=calls, ranks=len(traces), max_calls=max_calls, max_ranks=max_ranks
        )
    return ""


def text(traces: Traces, width: int = WIDTH, lang: str = "en") -> str:
    """One row per rank, one column per step; wrapped into blocks of steps to fit ``width``."""
    why = too_big(traces, lang=lang)
    if why:
        return why
    if not call_count(traces):
        return t("trace:empty", lang)
    drawn = layout(traces)
    columns = drawn.columns
    grid = [[IDLE] * columns for _ in drawn.rows]
    for rank, row in enumerate(drawn.rows):
        for step in row:
            grid[rank][step.column] = step.label()
    heads = [f"{t('trace:step', lang)} {c}" for c in range(columns)]
    if any(drawn.sent) or any(drawn.received):
        heads.append(t("trace:in all", lang))
        for rank, cells in enumerate(grid):
            talked = any(item.kind != "collective" for step in drawn.rows[rank] for item in step.items)
            cells.append(f"→{size(drawn.sent[rank])} ←{size(drawn.received[rank])}" if talked else "")
    widths = [max(len(heads[c]), *(len(cells[c]) for cells in grid)) for c in range(len(heads))]
    names = [f"rank {rank}" for rank in range(len(grid))]
    lead = max(map(len, names)) + 2
    unmatched = any(not item.matched for row in drawn.rows for step in row for item in step.items)
    lines = [
        t("trace:legend", lang) + (t("trace:unmatched", lang, mark=UNMATCHED) if unmatched else "") + "):"
    ]
    for block in _blocks(widths, width - lead - 3):
        lines.append(" " * (lead + 3) + "  ".join(heads[c].ljust(widths[c]) for c in block).rstrip())
        for rank, cells in enumerate(grid):
            row = "  ".join(cells[c].ljust(widths[c]) for c in block)
            lines.append(f"  {names[rank].ljust(lead - 2)} | {row}".rstrip())
    return "\n".join(lines)


def _blocks(widths: list[int], room: int) -> list[list[int]]:
    """Consecutive columns, as many per block as fit in ``room`` characters (at least one)."""
    blocks: list[list[int]] = [[]]
    used = 0
    for c, w in enumerate(widths):
        if blocks[-1] and used + 2 + w > room:
            blocks.append([])
            used = 0
        used += w + (2 if blocks[-1] else 0)
        blocks[-1].append(c)
    return blocks


def picture(traces: Traces) -> Picture:
    """The trace for a failure: its text, and its PNG unless it is too big even for that."""
    drawable = not too_big(traces, MAX_PNG_RANKS, MAX_PNG_CALLS) and call_count(traces) > 0
    draw = (lambda path: render_png(traces, path)) if drawable else None
    try:
        shown = each_lang(lambda lang: text(traces, lang=lang))
    except Exception:  # noqa: BLE001 - a picture must never turn a failure into a grader error
        shown, draw = each_lang(lambda lang: t("trace:not drawn", lang)), None
    return Picture("trace", shown, draw)


# -- the PNG ------------------------------------------------------------------------------------


def render_png(traces: Traces, path, *, title: str = "") -> Path:
    """Draw ``traces`` at ``path``: a lane per rank, an arrow per message with its bytes (red:
    never received), a box per collective on each rank that called it. Needs matplotlib (the
    ``reports`` extra)."""
    plt = figures.pyplot()
    drawn = layout(traces)
    n, columns = len(traces), max(drawn.columns, 1)
    fig, ax = plt.subplots(figsize=(min(max(5.0, 1.6 + 1.3 * columns), 40), 1.2 + 0.65 * n), dpi=110)

    def y(rank: int) -> float:
        return n - 1 - rank

    def x(column: int, src: int) -> float:  # messages of one column spread out by sender
        return column - 0.3 + 0.6 * (src + 0.5) / n

    for rank in range(n):
        ax.plot([-0.5, columns - 0.5], [y(rank)] * 2, color="#dddddd", lw=1, zorder=0)
    for arrow in drawn.arrows:
        start = (x(arrow.send_column, arrow.src), y(arrow.src))
        if arrow.recv_column < 0:  # nobody received it: half an arrow, in red
            end, colour = (start[0] + 0.15, (y(arrow.src) + y(arrow.dst)) / 2), "#c0392b"
        else:
            end, colour = (x(arrow.recv_column, arrow.src), y(arrow.dst)), "#2c6fbb"
        ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.2})
        mark = "" if arrow.recv_column >= 0 else UNMATCHED
        ax.text(
            (start[0] + end[0]) / 2 + 0.03, (start[1] + end[1]) / 2, size(arrow.nbytes) + mark, fontsize=6
        )
    for rank, row in enumerate(drawn.rows):
        for step in row:
            for item in step.items:
                if item.kind == "collective":
                    ax.text(
                        step.column,
                        y(rank),
                        item.label(),
                        ha="center",
                        va="center",
                        fontsize=6,
                        bbox={"boxstyle": "round", "facecolor": "#f6e7c1", "edgecolor": "#c9a227"},
                    )
    ax.set_yticks(
        [y(r) for r in range(n)],
        [f"rank {r}\n→{size(drawn.sent[r])} ←{size(drawn.received[r])}" for r in range(n)],
        fontsize=8,
    )
    ax.set_xticks(range(columns), [f"step {c}" for c in range(columns)], fontsize=7)
    ax.set_xlim(-0.5, columns - 0.5)
    ax.set_ylim(-0.6, n - 0.4)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_title(
        title
        or f"trace: {n} rank(s), {columns} step(s)"
        + ("; red: never received" if any(a.recv_column < 0 for a in drawn.arrows) else ""),
        fontsize=8,
    )
    fig.tight_layout()
    return figures.save(fig, path)
