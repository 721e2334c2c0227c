"""The class report: what a teacher reads after a deadline, beside ``grades.csv``.

``report.html`` (one self-contained page, readable offline) and its PNGs in ``report/``:

* the scores: the total's histogram, and each exercise's;
* the pass rate of every part;
* the failed parts by kind (wrong result, hang, crash, banned call, ...), and the submissions
  whose grading stopped (time or memory limit);
* the misconceptions, where they were named (:mod:`graders.misconceptions.teacher_view`);
* the most similar pairs, where ``--similarity`` ran;
* the slowest submissions.

Without matplotlib (the ``reports`` extra) the page has its tables and no pictures.
"""

from __future__ import annotations

import html
import io
import statistics
from collections import Counter
from pathlib import Path

from graders import catalog
from graders.gradebook import PASSED
from graders.infra.files import write_atomic
from graders.judge import figures

#: rows of the "most similar" and "slowest" tables
TOP = 10


def write_report(results: list, chapter: str, out_dir: Path, *, similar=(), misconceptions=None) -> Path:
    """Write ``out_dir/report.html`` (and ``out_dir/report/*.png``) for ``results`` of ``chapter``.
    ``similar``: flagged :class:`~graders.grading.reports.similarity.SimilarPair` s; ``misconceptions``:
    ``{exercise: {misconception: [students]}}``."""
    out_dir = Path(out_dir)
    exercises = catalog.CHAPTERS[chapter].exercises
    pictures = _pictures(results, exercises, out_dir / "report") if figures.matplotlib_available() else {}
    sections = [
        _scores(results, chapter, exercises, pictures),
        _parts(results, exercises, pictures),
        _failures(results, pictures),
        _misconceptions(misconceptions, len(results)),
        _similar(similar),
        _slowest(results),
    ]
    page = _PAGE.format(
        chapter=html.escape(chapter),
        title=html.escape(catalog.CHAPTERS[chapter].title),
        count=len(results),
        note="" if pictures else "<p><em>No pictures: install the reports extra (matplotlib).</em></p>",
        body="\n".join(sections),
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
    """How many failed parts failed for each kind; grading that stopped counts once per student."""
    kinds: Counter = Counter()
    for result in results:
        for part in result.book.parts.values():
            if part.status != PASSED and part.kind:
                kinds[part.kind] += 1
        if result.error_kind:
            kinds[f"grading stopped: {result.error_kind}"] += 1
    return kinds


# -- the pictures ---------------------------------------------------------------------------------
def _pictures(results: list, exercises, folder: Path) -> dict[str, str]:
    """The PNGs, by name -> path relative to the report."""
    plt = figures.pyplot()
    from matplotlib.ticker import MaxNLocator

    made = {}
    count = len(exercises) + 1
    columns = min(4, count)
    rows = -(-count // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.4 * rows), squeeze=False)
    possible = sum(e.points for e in exercises)
    panels = [("total", [_total(r) for r in results], possible)]
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
    fig.suptitle("points per student")
    fig.tight_layout()
    made["scores"] = _saved(fig, folder / "scores.png")

    rates = part_rates(results, exercises)
    fig, ax = plt.subplots(figsize=(7, 0.28 * len(rates) + 1))
    labels = [f"{e} · {p}" for e, p, _, _ in rates]
    shares = [passed / graded if graded else 0 for _, _, passed, graded in rates]
    ax.barh(range(len(rates)), shares, color="#228833")
    ax.set_yticks(range(len(rates)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the class that passed")
    fig.tight_layout()
    made["parts"] = _saved(fig, folder / "parts.png")

    kinds = failure_kinds(results).most_common()
    if kinds:
        fig, ax = plt.subplots(figsize=(6, 0.35 * len(kinds) + 1))
        ax.barh(range(len(kinds)), [n for _, n in kinds], color="#ee6677")
        ax.set_yticks(range(len(kinds)), [k for k, _ in kinds], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("failed parts")
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


# -- the sections ---------------------------------------------------------------------------------
def _image(pictures: dict, name: str, alt: str) -> str:
    return f'<p><img src="{pictures[name]}" alt="{alt}"></p>' if name in pictures else ""


def _table(header: list[str], rows: list[list]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _scores(results: list, chapter: str, exercises, pictures: dict) -> str:
    totals = [_total(r) for r in results]
    possible = catalog.CHAPTERS[chapter].points
    summary = (
        f"<p>{len(results)} submission(s); mean {statistics.fmean(totals):.1f} / {possible}, "
        f"median {statistics.median(totals):g}, full marks {sum(t == possible for t in totals)}.</p>"
        if totals
        else "<p>No submission was graded.</p>"
    )
    rows = []
    for e in exercises:
        points = [_points(r, e.id) for r in results]
        mean = f"{statistics.fmean(points):.2f}" if points else "-"
        rows.append([e.id, e.points, mean, sum(p == e.points for p in points)])
    table = _table(["exercise", "points", "mean", "full marks"], rows)
    return "<h2>Scores</h2>" + summary + _image(pictures, "scores", "score histograms") + table


def _parts(results: list, exercises, pictures: dict) -> str:
    rows = [
        [e, p, f"{passed}/{graded}", f"{passed / graded:.0%}" if graded else "-"]
        for e, p, passed, graded in part_rates(results, exercises)
    ]
    table = _table(["exercise", "part", "passed", "rate"], rows)
    return "<h2>Pass rate per part</h2>" + _image(pictures, "parts", "pass rates") + table


def _failures(results: list, pictures: dict) -> str:
    kinds = failure_kinds(results).most_common()
    if not kinds:
        return "<h2>Failures by kind</h2><p>No part failed.</p>"
    table = _table(["kind", "failed parts"], [[k, n] for k, n in kinds])
    return "<h2>Failures by kind</h2>" + _image(pictures, "failures", "failures by kind") + table


def _misconceptions(found, class_size: int) -> str:
    if found is None:
        return ""
    rows = []
    for exercise, names in sorted(found.items()):
        for name, students in sorted(names.items(), key=lambda item: -len(item[1])):
            share = f"{len(students) / class_size:.0%}" if class_size else "-"
            rows.append([exercise, name, len(students), share, ", ".join(sorted(students))])
    if not rows:
        return "<h2>Misconceptions</h2><p>No failing part behaves like a known misconception.</p>"
    header = ["exercise", "behaves like", "students", "share of the class", "who"]
    return "<h2>Misconceptions</h2>" + _table(header, rows)


def _similar(pairs) -> str:
    pairs = list(pairs)
    if not pairs:
        return ""
    rows = [
        [p.first, p.second, f"{p.first_score:.0%}", f"{p.second_score:.0%}", p.tokens] for p in pairs[:TOP]
    ]
    table = _table(["first", "second", "first's code in second", "second's in first", "tokens"], rows)
    more = f"<p>{len(pairs) - TOP} more in similarity.csv.</p>" if len(pairs) > TOP else ""
    return (
        "<h2>Most similar pairs</h2><p>Flagged for review, never penalised; the matching code side by "
        'side: <a href="similarity.html">similarity.html</a>.</p>' + table + more
    )


def _slowest(results: list) -> str:
    slowest = sorted(results, key=lambda r: -r.seconds)[:TOP]
    rows = [[r.student_id, f"{r.seconds:.1f}", r.error_kind or ""] for r in slowest]
    return "<h2>Slowest submissions</h2>" + _table(["student", "seconds", "stopped"], rows)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dtlab · {chapter} · class report</title>
<style>
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; }}
td, th {{ border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; font-size: 0.9em; }}
th {{ background: #f0f0f0; }} img {{ max-width: 100%; }}
</style></head>
<body><h1>{chapter} · {title}: class report</h1>
<p>{count} submission(s). Grades are in grades.csv; each student's feedback in feedback/.</p>
{note}
{body}
</body></html>
"""
