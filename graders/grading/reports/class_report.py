"""The class report: what a teacher reads after a deadline, beside ``grades.csv``.

``report.html`` (one self-contained page, readable offline) and its PNGs in ``report/``:

* the scores: the total's histogram, and each exercise's;
* the pass rate of every part;
* the failed parts by kind (wrong result, hang, crash, banned call, ...), and the submissions
  whose grading stopped (time or memory limit);
* the misconceptions, where they were named (:mod:`graders.misconceptions.teacher_view`);
* the most similar pairs, where ``--similarity`` ran;
* the slowest submissions.

Without matplotlib (the ``reports`` extra) the page has its tables and no pictures. The page is
``templates/class_report.html``, in the class's language (:mod:`graders.grading.reports.pages`).
"""

from __future__ import annotations

import io
import statistics
from collections import Counter
from pathlib import Path

from graders import catalog
from graders.gradebook import PASSED
from graders.grading.reports import pages, similarity_page
from graders.infra.files import write_atomic
from graders.judge import figures
from graders.words.numbers import format_number
from graders.words.vocabulary import part_name, t

#: rows of the "most similar" and "slowest" tables
TOP = 10
#: how :func:`failure_kinds` names a submission whose grading stopped, before the kind
STOPPED = "grading stopped: "


def write_report(
    results: list, chapter: str, out_dir: Path, *, similar=(), misconceptions=None, lang: str = "en"
) -> Path:
    """Write ``out_dir/report.html`` (and ``out_dir/report/*.png``) for ``results`` of ``chapter``,
    in ``lang``. ``similar``: flagged :class:`~graders.grading.reports.similarity.SimilarPair` s;
    ``misconceptions``: ``{exercise: {misconception: [students]}}``."""
    out_dir = Path(out_dir)
    info = catalog.CHAPTERS[chapter]
    exercises = info.exercises
    drawn = figures.matplotlib_available()
    pictures = _pictures(results, exercises, out_dir / "report", lang) if drawn else {}
    similar = list(similar)
    page = pages.render(
        "class_report.html",
        lang,
        chapter=chapter,
        title=info.title_in(lang),
        count=len(results),
        pictures=pictures,
        summary=_summary(results, info.points),
        scores=_scores(results, exercises, lang),
        parts=_parts(results, exercises, lang),
        failures=_failures(results, lang),
        misconceptions=_misconceptions(misconceptions, len(results), lang),
        similar=[similarity_page.pair_cells(pair, lang) for pair in similar[:TOP]],
        more_similar=max(0, len(similar) - TOP),
        slowest=_slowest(results, lang),
    )
    path = out_dir / "report.html"
    write_atomic(path, page.encode("utf-8"))
    return path


# -- the numbers -----------------------------------------------------------------------------------
def _points(result, exercise_id: str) -> int:
    return sum(p.points for key, p in result.book.parts.items() if key.split("::")[0] == exercise_id)


def _total(result) -> int:
    return result.book.total[0]


def part_rates(results: list, exercises) -> list[tuple[str, str, int, int]]:
    """``(exercise, part, passed, graded)`` of every part, in the catalog's order."""
    rows = []
    for exercise in exercises:
        for part in exercise.parts:
            key = f"{exercise.id}::{part}"
            passed = sum(1 for r in results if key in r.book.parts and r.book.parts[key].status == PASSED)
            rows.append((exercise.id, part, passed, len(results)))
    return rows


def failure_kinds(results: list) -> Counter:
    """How many failed parts failed for each kind; grading that stopped counts once per student,
    as ``STOPPED + kind``."""
    kinds: Counter = Counter()
    for result in results:
        for part in result.book.parts.values():
            if part.status != PASSED and part.kind:
                kinds[part.kind] += 1
        if result.error_kind:
            kinds[f"{STOPPED}{result.error_kind}"] += 1
    return kinds


def kind_meaning(kind: str, lang: str) -> str:
    """What a key of :func:`failure_kinds` means, in ``lang``."""
    if kind.startswith(STOPPED):
        return t("report:grading stopped", lang, kind=t("kind:" + kind.removeprefix(STOPPED), lang))
    return t("kind:" + kind, lang)


# -- the pictures ---------------------------------------------------------------------------------
def _pictures(results: list, exercises, folder: Path, lang: str) -> dict[str, str]:
    """The PNGs, by name -> path relative to the report."""
    plt = figures.pyplot()
    from matplotlib.ticker import MaxNLocator

    made = {}
    count = len(exercises) + 1
    columns = min(4, count)
    rows = -(-count // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.4 * rows), squeeze=False)
    possible = sum(e.points for e in exercises)
    panels = [(t("total", lang), [_total(r) for r in results], possible)]
    panels += [(e.id, [_points(r, e.id) for r in results], e.points) for e in exercises]
    for ax, (name, values, top) in zip(axes.flat, panels, strict=False):
        ax.hist(values, bins=range(top + 2), align="left", color="#4477aa", rwidth=0.85)
        ax.set_title(name, fontsize=9)
        ax.set_xlim(-0.6, top + 0.6)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle(t("report:points per student", lang))
    fig.tight_layout()
    made["scores"] = _saved(fig, folder / "scores.png")

    rates = part_rates(results, exercises)
    fig, ax = plt.subplots(figsize=(7, 0.28 * len(rates) + 1))
    labels = [f"{e} · {part_name(p, lang)}" for e, p, _, _ in rates]
    shares = [passed / graded if graded else 0 for _, _, passed, graded in rates]
    ax.barh(range(len(rates)), shares, color="#228833")
    ax.set_yticks(range(len(rates)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda x, _: format_number(x, ".0%", lang))
    ax.set_xlabel(t("report:share passed", lang))
    fig.tight_layout()
    made["parts"] = _saved(fig, folder / "parts.png")

    kinds = failure_kinds(results).most_common()
    if kinds:
        fig, ax = plt.subplots(figsize=(6, 0.35 * len(kinds) + 1))
        ax.barh(range(len(kinds)), [n for _, n in kinds], color="#ee6677")
        ax.set_yticks(range(len(kinds)), [kind_meaning(k, lang) for k, _ in kinds], fontsize=8)
        ax.invert_yaxis()
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(t("report:failed parts", lang))
        fig.tight_layout()
        made["failures"] = _saved(fig, folder / "failures.png")
    return made


def _saved(fig, path: Path) -> str:
    """Write ``fig`` as a PNG (atomically, readable by the teacher's group) and release it."""
    data = io.BytesIO()
    fig.savefig(data, format="png")
    figures.pyplot().close(fig)
    write_atomic(path, data.getvalue())
    return f"{path.parent.name}/{path.name}"


# -- the sections' rows, written in the page's language -------------------------------------------
def _summary(results: list, possible: int) -> dict:
    """The fields of the scores' sentence (empty when nothing was graded)."""
    totals = [_total(r) for r in results]
    if not totals:
        return {}
    return {
        "count": len(totals),
        "mean": statistics.fmean(totals),
        "possible": possible,
        "median": statistics.median(totals),
        "full": sum(total == possible for total in totals),
    }


def _scores(results: list, exercises, lang: str) -> list[list]:
    rows = []
    for e in exercises:
        points = [_points(r, e.id) for r in results]
        mean = format_number(statistics.fmean(points), ".2f", lang) if points else "-"
        rows.append([e.id, e.points, mean, sum(p == e.points for p in points)])
    return rows


def _parts(results: list, exercises, lang: str) -> list[list]:
    return [
        [e, part_name(p, lang), f"{passed}/{graded}", _share(passed, graded, lang)]
        for e, p, passed, graded in part_rates(results, exercises)
    ]


def _failures(results: list, lang: str) -> list[list]:
    """A row per kind: its name as the CSVs write it, what it means in ``lang``, how many parts."""
    counted = failure_kinds(results).most_common()
    return [[kind.removeprefix(STOPPED), kind_meaning(kind, lang), n] for kind, n in counted]


def _misconceptions(found, class_size: int, lang: str) -> list[list] | None:
    if found is None:
        return None
    rows = []
    for exercise, names in sorted(found.items()):
        for name, students in sorted(names.items(), key=lambda item: -len(item[1])):
            share = _share(len(students), class_size, lang)
            rows.append([exercise, name, len(students), share, ", ".join(sorted(students))])
    return rows


def _slowest(results: list, lang: str) -> list[list]:
    slowest = sorted(results, key=lambda r: -r.seconds)[:TOP]
    return [[r.student_id, format_number(r.seconds, ",.1f", lang), r.error_kind or ""] for r in slowest]


def _share(part: float, whole: float, lang: str) -> str:
    return format_number(part / whole, ".0%", lang) if whole else "-"
