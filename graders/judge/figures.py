"""Pictures attached to a failed check, drawn as PNG files when a report is written.

A check that fails can attach figures to its exception: ``attach(exc, name, draw)``, where
``draw(path)`` writes a PNG (a pipeline timeline, memory bars, a communication trace). A
:class:`Picture` is the usual shape of one: its ``text`` goes into the failure message (the
terminal always shows it), its ``draw`` becomes the PNG (``graders.judge.checks.fail(...,
picture=...)`` does both). ``pyplot()`` and ``save()`` are the matplotlib plumbing the drawers
share. The pytest plugin draws them
next to the JSON report (``--dtlab-report FILE`` → ``FILE``'s folder ``/figures``) and lists
them in the part's result; batch grading copies them beside the student's feedback. Drawing
needs matplotlib (``pip install 'dtlab[reports]'``); without it, or if drawing fails, the
figure is skipped and grading goes on.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_ATTR = "dtlab_figures"


@dataclass(frozen=True)
class Figure:
    name: str  # short file-name part: "timeline"
    draw: Callable[[Path], object]


@dataclass(frozen=True)
class Picture:
    """What a check saw, for the eye: ``text`` for the failure message, ``draw(path)`` for a PNG
    (``None`` when there is only the text, e.g. one that says why nothing is drawn)."""

    name: str  # short file-name part: "trace", "memory"
    text: str
    draw: Callable[[Path], object] | None = None


def attach(exc: BaseException, name: str, draw: Callable[[Path], object]) -> BaseException:
    """Attach a figure to ``exc`` (returned, so ``raise attach(GradingFailure(...), ...)`` reads well)."""
    figures = list(getattr(exc, _ATTR, []))
    figures.append(Figure(name, draw))
    setattr(exc, _ATTR, figures)
    return exc


def attach_picture(exc: BaseException, picture: Picture) -> BaseException:
    """Attach ``picture``'s PNG drawer to ``exc`` (its text is the caller's to place)."""
    return attach(exc, picture.name, picture.draw) if picture.draw is not None else exc


def figures_of(exc: BaseException | None) -> list[Figure]:
    return list(getattr(exc, _ATTR, [])) if exc is not None else []


def matplotlib_available() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def pyplot():
    """matplotlib's ``pyplot`` on the Agg backend (files only, no display); needs the ``reports`` extra."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save(fig, path) -> Path:
    """Write ``fig`` as a PNG at ``path`` (its folder made if needed) and release it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    pyplot().close(fig)
    return path


def render(figures: list[Figure], directory: Path, stem: str) -> list[Path]:
    """Draw ``figures`` as ``directory/<stem>-<name>.png``; returns the files written."""
    if not figures or not matplotlib_available():
        return []
    written = []
    for figure in figures:
        path = Path(directory) / f"{_safe(stem)}-{_safe(figure.name)}.png"
        try:
            figure.draw(path)
        except Exception:  # noqa: BLE001 - a picture must never break a grading run
            continue
        if path.exists():
            written.append(path)
    return written


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)
