"""Pictures of a schedule: a text timeline for the terminal and a PNG for reports.

Both draw the dependency simulator's run of the schedule under unit costs (a forward and a
backward each take one column, or 1/v of a stage's time with v chunks), so idle slots, the
bubble, show up as gaps. matplotlib is optional (the ``reports`` extra) and imported only when
a PNG is drawn.
"""

from __future__ import annotations

from pathlib import Path

from graders.chapters.ch7.simulator import Simulation, label, normalize, simulate
from graders.judge import figures
from graders.words.messages import say
from graders.words.text import Text, join

IDLE = "·"


def text(sim: Simulation, max_columns: int = 72) -> Text:
    """One row per stage, one column per tick; ``·`` marks an idle tick (in every language)."""
    width = max((len(label(slot.action, sim.v)) for row in sim.placed for slot in row), default=2) + 1
    columns = min(sim.ticks, max_columns)
    waits = {w.stage: w for w in sim.waits}
    unit = say("ch7:timeline:unit") if sim.v == 1 else say("ch7:timeline:unit chunks", v=sim.v)
    legend = say("ch7:timeline:key") if sim.v == 1 else say("ch7:timeline:key chunks")
    lines: list[Text | str] = [say("ch7:timeline", unit=unit, legend=legend, idle=IDLE)]
    for s in range(sim.p):
        cells = [IDLE.ljust(width)] * columns
        for slot in sim.placed[s]:
            for tick in range(slot.start, min(slot.end, columns)):
                name = label(slot.action, sim.v) if tick == slot.start else "~"
                cells[tick] = name.ljust(width)
        end = max((slot.end for slot in sim.placed[s]), default=0)
        if s in waits:  # nothing runs after the stage got stuck
            cells = cells[: min(end, columns)]
        row = "".join(cells).rstrip()
        more = " …" if sim.ticks > max_columns and (s not in waits or end > max_columns) else ""
        stuck = say("ch7:timeline:stuck", reason=waits[s].reason(sim.v)) if s in waits else ""
        lines.append(f"  stage {s} | {row}{more}" + stuck)
    if not sim.deadlocked:
        bubble = sim.bubble_fraction
        shown = {"makespan": number(sim.makespan), "bubble": number(bubble), "share": float(bubble)}
        lines.append(say("ch7:timeline:makespan", **shown))
    return join("\n", lines)


def number(value) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _dimensions(schedule) -> tuple[int, int, int]:
    """(p, m, v) read off a schedule: stages, 1 + largest microbatch, 1 + largest chunk."""
    actions = [a for row in schedule for a in row]
    m = 1 + max((int(a[1]) for a in actions), default=0)
    v = 1 + max((int(a[2]) for a in actions if len(a) > 2), default=0)
    return len(schedule), m, v


def render_timeline_png(schedule, path, *, title: str = "") -> Path:
    """Draw ``schedule`` (as returned by ``schedules.py``) as a timeline PNG at ``path``.

    Forwards are blue, backwards green (lighter for later chunks), idle time is hatched grey,
    and a stage stuck in a deadlock ends with a red marker saying what it waits for.
    Needs matplotlib (``pip install 'dtlab[reports]'``).
    """
    plt = figures.pyplot()
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter

    p, m, v = _dimensions(schedule)
    sim = simulate(normalize(schedule, p, m, v), p, m, v)
    ticks = max(sim.ticks, 1)
    notes = [w.describe(v) for w in sim.waits]
    width = min(max(6.0, 2 + 0.32 * ticks), 40)
    fig, ax = plt.subplots(figsize=(width, 1.3 + 0.55 * p + 0.22 * len(notes)), dpi=110)
    colours = {"F": (0.30, 0.45, 0.69), "B": (0.33, 0.66, 0.41)}
    for s in range(p):
        y = p - 1 - s
        ax.broken_barh([(0, ticks)], (y + 0.1, 0.8), facecolors="#f2f2f2", edgecolor="#bbbbbb", hatch="//")
        for slot in sim.placed[s]:
            kind, mb, chunk = slot.action
            shade = 1 - 0.45 * chunk / max(v - 1, 1)
            colour = tuple(1 - (1 - c) * shade for c in colours[kind])
            ax.broken_barh(
                [(slot.start, slot.end - slot.start)], (y + 0.1, 0.8), facecolors=colour, edgecolor="white"
            )
            ax.text(
                (slot.start + slot.end) / 2,
                y + 0.5,
                label(slot.action, v)[1:],
                ha="center",
                va="center",
                fontsize=7,
                color="white",
            )
    for wait in sim.waits:
        end = max((slot.end for slot in sim.placed[wait.stage]), default=0)
        ax.plot([end], [p - 1 - wait.stage + 0.5], marker="X", color="#c0392b", markersize=10, clip_on=False)
    ax.set_yticks([p - 1 - s + 0.5 for s in range(p)], [f"stage {s}" for s in range(p)])
    ax.set_xlim(0, ticks)
    ax.set_ylim(0, p)
    ax.set_xlabel("time (forward = backward = 1" + (f"; a chunk takes 1/{v}" if v > 1 else "") + ")")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / v:g}"))
    status = "deadlock" if sim.deadlocked else f"bubble {float(sim.bubble_fraction):.1%}"
    ax.set_title(title or f"p={p}, m={m}" + (f", v={v}" if v > 1 else "") + f" · {status}", fontsize=9)
    legend = [Patch(color=colours["F"], label="forward"), Patch(color=colours["B"], label="backward")]
    legend.append(Patch(facecolor="#f2f2f2", edgecolor="#bbbbbb", hatch="//", label="idle (bubble)"))
    ax.legend(handles=legend, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
    if notes:
        fig.text(0.01, 0.01, "\n".join(notes), color="#c0392b", fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, 0.05 * len(notes) / max(p, 1), 1, 1))
    return figures.save(fig, path)
