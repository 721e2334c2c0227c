"""The pictures of a graded test's failure (trace, memory bars, timeline) as PNG files: beside the
JSON report (``--dtlab-report``), and in ``--png DIR``."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.words.vocabulary import t

#: the PNG files ``--png DIR`` got in this run
_WRITTEN = pytest.StashKey[list]()


def draw_beside_report(report: str | None, excinfo, exercise_id: str, part: str) -> list[str]:
    """PNG pictures the failed check attached, drawn in ``figures/`` beside the JSON ``report``
    (when one is written); their paths relative to its folder."""
    from graders.judge import figures

    attached = figures.figures_of(excinfo.value)
    if not report or not attached:
        return []
    root = Path(report).parent
    written = figures.render(attached, root / "figures", f"{exercise_id}.{part}")
    return [str(path.relative_to(root)) for path in written]


def write_pngs(item: pytest.Item, excinfo) -> None:
    """``--png DIR``: the failed test's pictures as ``DIR/<chapter>.<test file>.<test>-<name>.png``."""
    from graders.judge import figures

    folder = item.config.getoption("dtlab_png")
    attached = figures.figures_of(excinfo.value)
    if not folder or not attached:
        return
    stem = f"{item.path.parent.name}.{item.path.stem}.{item.name}"
    item.config.stash.setdefault(_WRITTEN, []).extend(figures.render(attached, Path(folder), stem))


def png_summary(terminalreporter, config: pytest.Config, lang: str) -> None:
    """The run's last line about ``--png DIR``: how many pictures, or that matplotlib is missing."""
    folder = config.getoption("dtlab_png")
    if not folder:
        return
    from graders.judge import figures

    if not figures.matplotlib_available():
        terminalreporter.write_line(f"dtlab: {t('png:no matplotlib', lang)}")
        return
    written = config.stash.get(_WRITTEN, [])
    if written:
        terminalreporter.write_line(f"dtlab: {t('png:written', lang, n=len(written), folder=folder)}")
