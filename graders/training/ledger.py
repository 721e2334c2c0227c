"""Memory per rank: bytes of tensors as an allocator sees them, and bars for feedback.

Worker side, :func:`storage_bytes` counts tensor memory the way an allocator sees it: every
distinct storage once, at its full size (a view of a big buffer keeps the whole buffer, and a
storage resized to zero costs nothing). What a rank keeps alive is measured by the live
ledger (:mod:`graders.training.live_memory`), never by walking from a student's object.

Driver side, :func:`render_bars` draws one bar per rank and category, with the limit the
lesson promises, for the failure messages of memory checks (:func:`bars_picture` adds the same
bars as a PNG, :func:`render_bars_png`)::

    ZeRO-1, bytes per rank   █ measured   ┃ promised limit
    rank 0  params           ████████████████████████████████████████  712
            grads            ████████████████████████████████████████  700
            optimizer state  ██████████████████████▊      ┃            1,416  > 784 ✗
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from graders.judge import figures
from graders.judge.figures import Picture
from graders.words.messages import say
from graders.words.numbers import format_number
from graders.words.text import Text, each_lang, in_lang


def storage_key(tensor: torch.Tensor) -> tuple[int, int]:
    """What identifies the memory behind ``tensor`` (an empty storage by its object)."""
    storage = tensor.untyped_storage()
    ptr = storage.data_ptr()
    return ptr, id(storage) if ptr == 0 else 0


def storage_bytes(tensors: Iterable[torch.Tensor], *, excluding: Iterable[torch.Tensor] = ()) -> int:
    """Bytes of the distinct storages behind ``tensors`` (each storage counted once), leaving
    out the storages of ``excluding``."""
    skip = {storage_key(t) for t in excluding if isinstance(t, torch.Tensor) and t.layout == torch.strided}
    seen: dict[tuple[int, int], int] = {}
    for tensor in tensors:
        if not isinstance(tensor, torch.Tensor) or tensor.layout != torch.strided:
            continue
        key = storage_key(tensor)
        if key not in skip:
            seen[key] = tensor.untyped_storage().nbytes()
    return sum(seen.values())


# -- driver side: the picture ------------------------------------------------------------------

_EIGHTHS = " ▏▎▍▌▋▊▉"


def _bar(value: int, scale: float, width: int, limit: int | None) -> str:
    cells = value / scale * width if scale else 0.0
    full = min(int(cells), width)
    text = "█" * full
    if full < width:
        text += _EIGHTHS[int((cells - full) * 8)].strip()
    text = text.ljust(width)
    if limit is not None and scale:
        at = min(int(round(limit / scale * width)), width - 1)
        text = text[:at] + "┃" + text[at + 1 :] if text[at] == " " else text
    return text


Limits = Mapping[str, int | Mapping[int, int]]


@dataclass(frozen=True)
class _Bar:
    rank: int | None  # None: summed over the ranks
    category: str
    value: int
    limit: int | None

    @property
    def over(self) -> bool:
        return self.limit is not None and self.value > self.limit

    def verdict(self, lang: str = "en") -> str:
        if self.limit is None:
            return ""
        return (
            f"  {'>' if self.over else '≤'} {format_number(self.limit, ',', lang)}{' ✗' if self.over else ''}"
        )


def _bars(ledgers, limits, labels, totals) -> tuple[list[_Bar], list[_Bar]]:
    """The bars per rank (rank by rank, in category order), and the sums over the ranks that have
    a limit in ``totals``."""
    limits, totals = limits or {}, totals or {}
    categories = list(labels or dict.fromkeys(c for ledger in ledgers.values() for c in ledger))
    per_rank = []
    for rank in sorted(ledgers):
        for category in categories:
            limit = limits.get(category)
            if isinstance(limit, Mapping):
                limit = limit.get(rank)
            per_rank.append(_Bar(rank, category, int(ledgers[rank].get(category, 0)), limit))
    summed = [
        _Bar(None, c, sum(int(ledger.get(c, 0)) for ledger in ledgers.values()), totals[c])
        for c in categories
        if c in totals
    ]
    return per_rank, summed


def render_bars(
    title: str,
    ledgers: Mapping[int, Mapping[str, int]],
    limits: Limits | None = None,
    *,
    width: int = 40,
    labels: Sequence[str] | None = None,
    totals: Mapping[str, int] | None = None,
) -> Text:
    """Text bars of bytes per rank and category (all on one scale), with promised limits.

    ``ledgers[rank][category]`` is measured bytes; ``limits[category]`` is the promised
    maximum, for every rank or per rank (``{rank: bytes}``); ``totals[category]`` the promised
    maximum summed over the ranks (a line ``sum`` per category, no bar). A value over its
    limit ends in ✗. ``title`` and the categories may be :class:`graders.words.messages.Text`: the
    bars are drawn in every language.
    """
    per_rank, summed = _bars(ledgers, limits, labels, totals)
    scale = max([bar.value for bar in per_rank] + [1])
    heading, sum_head = say("bars:head", title=title), say("bars:sum")

    def draw(lang: str) -> str:
        name_width = max((len(in_lang(bar.category, lang)) for bar in per_rank + summed), default=0)
        lines = [heading.in_lang(lang)]
        shown = None
        for bar in per_rank:
            head = f"rank {bar.rank}" if bar.rank != shown else ""
            shown = bar.rank
            drawn = _bar(bar.value, scale, width, bar.limit)
            name = in_lang(bar.category, lang)
            value = format_number(bar.value, ",", lang)
            lines.append(f"{head:<8}{name:<{name_width}}  {drawn}  {value}{bar.verdict(lang)}".rstrip())
        for i, bar in enumerate(summed):
            head = sum_head.in_lang(lang) if i == 0 else ""
            name = in_lang(bar.category, lang)
            value = format_number(bar.value, ",", lang)
            lines.append(f"{head:<8}{name:<{name_width}}  {'':{width}}  {value}{bar.verdict(lang)}")
        return "\n".join(lines)

    return each_lang(draw)


def bars_picture(
    title: str,
    ledgers: Mapping[int, Mapping[str, int]],
    limits: Limits | None = None,
    *,
    labels: Sequence[str] | None = None,
    totals: Mapping[str, int] | None = None,
) -> Picture:
    """The bars for a failure: :func:`render_bars`'s text and :func:`render_bars_png`'s PNG."""
    text = render_bars(title, ledgers, limits, labels=labels, totals=totals)

    def draw(path):
        return render_bars_png(path, title, ledgers, limits, labels=labels, totals=totals)

    return Picture("memory", text, draw)


def render_bars_png(
    path,
    title: str,
    ledgers: Mapping[int, Mapping[str, int]],
    limits: Limits | None = None,
    *,
    labels: Sequence[str] | None = None,
    totals: Mapping[str, int] | None = None,
) -> Path:
    """The same bars as a PNG at ``path``: a group per rank, a bar per category (red when over its
    limit), the limit as a black tick; the sums over the ranks below, on their own scale. Needs
    matplotlib (the ``reports`` extra)."""
    plt = figures.pyplot()
    per_rank, summed = _bars(ledgers, limits, labels, totals)
    heights = [len(per_rank) + 0.5 * len(ledgers)] + ([len(summed) + 0.5] if summed else [])
    fig, axes = plt.subplots(
        len(heights), 1, figsize=(8, 1.2 + 0.28 * sum(heights)), dpi=110, height_ratios=heights, squeeze=False
    )
    groups = [(axes[0][0], per_rank, title)] + (
        [(axes[1][0], summed, "summed over the ranks")] if summed else []
    )
    for ax, bars, heading in groups:
        y, ticks, names, previous = 0.0, [], [], per_rank[0].rank if per_rank else None
        for bar in bars:
            if bar.rank != previous:
                y -= 0.5  # a gap between ranks
                previous = bar.rank
            ax.barh(y, bar.value, height=0.7, color="#c0392b" if bar.over else "#4c72b0")
            if bar.limit is not None:
                ax.plot([bar.limit, bar.limit], [y - 0.45, y + 0.45], color="black", lw=2)
            ax.text(
                bar.value,
                y,
                f" {bar.value:,}" + (f" > {bar.limit:,}" if bar.over else ""),
                va="center",
                fontsize=7,
            )
            ticks.append(y)
            names.append(bar.category if bar.rank is None else f"rank {bar.rank} · {bar.category}")
            y -= 1
        ax.set_yticks(ticks, names, fontsize=7)
        ax.set_title(heading, fontsize=9)
        ax.margins(x=0.25)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    axes[-1][0].set_xlabel("bytes (black tick: the promised limit; red: over it)", fontsize=8)
    fig.tight_layout()
    return figures.save(fig, path)
