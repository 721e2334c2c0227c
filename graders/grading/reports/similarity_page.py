"""``similarity.html``: the flagged pairs, each student's code beside the other's with the matching
code marked, and how the scores of the pairs compared are spread; in the teacher's language.

The page is ``templates/similarity.html`` (:mod:`graders.grading.reports.pages`). The code is
handed to the template as runs of text, each marked or not, so that the template escapes every
character of it; no HTML is built from a submission here.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from graders import catalog
from graders.grading.reports import pages
from graders.infra.files import write_atomic
from graders.judge import figures
from graders.words.numbers import format_number
from graders.words.vocabulary import t


@dataclass(frozen=True)
class SideBySide:
    """A flagged pair's code: each side as ``(text, matched)`` runs, in order."""

    pair: object  # a graders.grading.reports.similarity.SimilarPair (which imports this module)
    first: list[tuple[str, bool]]
    second: list[tuple[str, bool]]


def runs(code: str, slices) -> list[tuple[str, bool]]:
    """``code`` cut at the matching ``slices`` (copydetect's 2 x N array of start and end offsets):
    its runs of text in order, each with whether it matches the other side."""
    found, at = [], 0
    for start, end in zip(*(map(int, row) for row in slices)):
        start, end = max(start, at), max(end, at)  # a region overlapping the last one: its rest
        if start > at:
            found.append((code[at:start], False))
        if end > start:
            found.append((code[start:end], True))
        at = end
    if at < len(code):
        found.append((code[at:], False))
    return found


def pair_cells(pair, lang: str) -> list:
    """A flagged pair's row of the pairs' tables (this page's and the class report's)."""
    first, second = (format_number(score, ".0%", lang) for score in (pair.first_score, pair.second_score))
    return [pair.first, pair.second, first, second, pair.tokens]


def write(
    path: Path,
    chapter: str,
    lang: str,
    *,
    submissions: int,
    threshold: float,
    min_tokens: int,
    sides: list[SideBySide],
    scores: list[float],
) -> None:
    """Write the page: ``sides`` are the flagged pairs, most similar first; ``scores`` the higher
    score of every pair compared in full (the others were too far apart to compare)."""
    page = pages.render(
        "similarity.html",
        lang,
        chapter=chapter,
        title=catalog.CHAPTERS[chapter].title_in(lang),
        submissions=submissions,
        threshold=threshold,
        min_tokens=min_tokens,
        sides=sides,
        rows=[pair_cells(side.pair, lang) for side in sides],
        histogram=_histogram(scores, lang) if scores and figures.matplotlib_available() else None,
        skipped=submissions * (submissions - 1) // 2 - len(scores),
    )
    write_atomic(path, page)


def _histogram(scores: list[float], lang: str):
    """The scores' histogram, as an inline image."""
    plt = figures.pyplot()
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(6, 2.6))
    ax.hist(scores, bins=[i / 20 for i in range(21)], color="#4477aa", rwidth=0.9)
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda x, _: format_number(x, ".0%", lang))
    ax.set_xlabel(t("similarity:higher score", lang))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(t("similarity:pairs", lang))
    fig.tight_layout()
    data = io.BytesIO()
    fig.savefig(data, format="png")
    plt.close(fig)
    return pages.data_image(data.getvalue(), t("similarity:histogram", lang))
