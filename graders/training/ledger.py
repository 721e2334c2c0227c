"""Memory per rank: bytes of tensors as an allocator sees them, and bars for feedback.

Worker side, :func:`storage_bytes` counts tensor memory the way an allocator sees it: every
distinct storage once, at its full size (a view of a big buffer keeps the whole buffer, and a
storage resized to zero costs nothing). What a rank keeps alive is measured by the live
ledger (:mod:`graders.training.live_memory`), never by walking from a student's object.

Driver side, :func:`render_bars` draws one bar per rank and category, with the limit the
lesson promises, for the failure messages of memory checks::

    ZeRO-1, bytes per rank   █ measured   ┃ promised limit
    rank 0  params           ████████████████████████████████████████  712
            grads            ████████████████████████████████████████  700
            optimizer state  ██████████████████████▊      ┃            1,416  > 784 ✗
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import torch

from graders.messages import Text, each_lang, in_lang, say


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


def render_bars(
    title: str,
    ledgers: Mapping[int, Mapping[str, int]],
    limits: Mapping[str, int | Mapping[int, int]] | None = None,
    *,
    width: int = 40,
    labels: Sequence[str] | None = None,
) -> Text:
    """Text bars of bytes per rank and category (all on one scale), with promised limits.

    ``ledgers[rank][category]`` is measured bytes; ``limits[category]`` is the promised
    maximum, for every rank or per rank (``{rank: bytes}``). A bar over its limit ends in ✗.
    ``title`` and the categories may be :class:`graders.messages.Text`: the picture is drawn
    in every language.
    """
    limits = limits or {}
    categories = list(labels or dict.fromkeys(c for ledger in ledgers.values() for c in ledger))
    scale = max([v for ledger in ledgers.values() for v in ledger.values()] + [1])
    head = say("bars:head", title=title)

    def draw(lang: str) -> str:
        names = [in_lang(c, lang) for c in categories]
        name_width = max(map(len, names)) if names else 0
        lines = [head.in_lang(lang)]
        for rank in sorted(ledgers):
            for i, (category, name) in enumerate(zip(categories, names, strict=True)):
                value = int(ledgers[rank].get(category, 0))
                limit = limits.get(category)
                if isinstance(limit, Mapping):
                    limit = limit.get(rank)
                who = f"rank {rank}" if i == 0 else ""
                line = f"{who:<8}{name:<{name_width}}  {_bar(value, scale, width, limit)}  {value:,}"
                if limit is not None:
                    line += f"  {'>' if value > limit else '≤'} {limit:,}{' ✗' if value > limit else ''}"
                lines.append(line.rstrip())
        return "\n".join(lines)

    return each_lang(draw)
