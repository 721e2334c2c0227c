"""Per-student feedback, in Markdown and in HTML: what passed, what failed with its minimal
example and hint, why grading stopped (if it did), what was left out of the submission, and the
integrity notes (static-scan flags, banned calls, run-time tampering) for the teacher's review.

Everything in it may quote the submission, so every piece of text goes through
:mod:`graders.infra.safe_text`: control characters are stripped, Markdown is escaped (a message
is a fenced block no line of it can close); the HTML page is a template
(:mod:`graders.grading.reports.pages`), which escapes every value it prints.
"""

from __future__ import annotations

import base64
from pathlib import Path
from urllib.parse import quote

from graders import catalog
from graders.errors import FailureKind
from graders.gradebook import PASSED
from graders.grading.reports import pages
from graders.infra.files import make_dirs, write_atomic
from graders.infra.safe_text import clean, md_code, md_inline, one_line
from graders.misconceptions.shipped import catalogue
from graders.words.vocabulary import exercise_title, part_name, t


def blocks(result, chapter: str, lang: str = "en") -> list[tuple]:
    """The document as blocks: ("h1"|"h2"|"p"|"strong"|"quote", text), ("table", header, rows),
    ("code", text), ("list", items), ("image", alt, path relative to the feedback folder)."""
    book = result.book
    earned, possible = book.total
    info = catalog.CHAPTERS[chapter]
    title = info.title_in(lang)
    doc: list[tuple] = [
        ("h1", f"{chapter} · {title} · {result.student_id}"),
        ("strong", f"{t('total', lang)}: {earned}/{possible}"),
        *[("p", line) for line in commit_lines(result, lang)],
    ]
    rows = book.rows()
    doc.append(
        (
            "table",
            [t("exercise", lang), t("points", lang), t("status", lang)],
            [[row.exercise, f"{row.points}/{row.max_points}", t(row.status, lang)] for row in rows],
        )
    )
    if result.error:
        doc.append(("quote", t("feedback:stopped", lang, error=result.error.splitlines()[0])))
    for row in rows:
        failed = [p for p in row.parts if p.status != PASSED]
        if not failed or row.status == "not started":
            continue
        doc.append(("h2", f"{row.exercise}: {exercise_title(catalog.exercise(row.exercise), lang)}"))
        for part in failed:
            kind = t("kind:" + part.kind, lang) if part.kind else t(part.status, lang)
            name = part_name(part.part, lang)
            doc.append(("strong", f"{name} ({part.points}/{part.max_points}): {kind}"))
            doc.append(("code", part_message(part, lang)))
            doc += [("image", name, figure) for figure in part.figures]
        doc += [("p", line) for line in misconception_lines(result, row.exercise, lang)]
    if result.notes:
        doc += [("h2", t("notes", lang)), ("list", list(result.notes))]
    flags = integrity_flags(result, lang)
    if flags:
        doc += [("h2", t("integrity", lang)), ("list", flags)]
    return doc


def commit_lines(result, lang: str = "en") -> list[str]:
    """Which commit of the student's repository was graded, and whether it is late."""
    commit = getattr(result, "commit", "")
    if not commit:
        return []
    lines = [t("feedback:commit", lang, commit=commit[:12], time=result.commit_time)]
    return lines + ([t("feedback:late commit", lang)] if result.commit_late else [])


def exercise_text(result, exercise_id: str, lang: str = "en") -> str:
    """One exercise's feedback as plain text: its points and status, then why each part failed."""
    entry = catalog.exercise(exercise_id)
    row = next((r for r in result.book.rows() if r.exercise == exercise_id), None)
    if row is None:
        return clean(f"{exercise_id} · {exercise_title(entry, lang)}: {t('feedback:not graded', lang)}")
    title = exercise_title(entry, lang)
    lines = [f"{exercise_id} · {title}: {row.points}/{row.max_points} · {t(row.status, lang)}"]
    if row.status != "not started":
        lines += [
            f"\n[{part_name(p.part, lang)}] {part_message(p, lang)}" for p in row.parts if p.status != PASSED
        ]
        lines += [f"\n{line}" for line in misconception_lines(result, exercise_id, lang)]
    return clean("\n".join(lines))


def misconception_lines(result, exercise_id: str, lang: str = "en") -> list[str]:
    """What the exercise's failing code behaves like, where a known misconception matched."""
    names = getattr(result, "misconceptions", {}).get(exercise_id)
    if not names:
        return []
    known = catalogue(exercise_id.split(".")[0])
    return [known[name].describe(lang) for name in names if name in known]


def part_message(part, lang: str = "en") -> str:
    """Why a part failed, never empty: a grader error without a message says so."""
    message = part.text(lang).strip()
    if message:
        return message
    if part.kind == FailureKind.INTERNAL:
        return t("internal without message", lang)
    return t(part.kind and "kind:" + part.kind or part.status, lang)


def summary_lines(result, lang: str = "en") -> list[str]:
    """What concerns the whole submission: why grading stopped, the intake notes, the integrity flags."""
    lines = commit_lines(result, lang)
    if result.error:
        lines.append(t("feedback:stopped", lang, error=result.error.splitlines()[0]))
    lines += result.notes
    flags = integrity_flags(result, lang)
    if flags:
        lines += [t("feedback:integrity reviewed", lang), *flags]
    return [clean(line) for line in lines]


def integrity_flags(result, lang: str = "en") -> list[str]:
    """Static-scan flags, banned calls and run-time tampering, in ``lang``: one line per flag, with
    the exercises it touched (a module-level finding touches every exercise of its file)."""
    where: dict[str, list[str]] = {}
    for exercise_id, items in sorted(result.book.integrity_in(lang).items()):
        for item in items:
            where.setdefault(item, []).append(exercise_id)
    return [f"{item} ({', '.join(exercises)})" for item, exercises in where.items()]


def markdown(result, chapter: str, lang: str = "en") -> str:
    lines: list[str] = []
    for block in blocks(result, chapter, lang):
        kind = block[0]
        if kind == "h1":
            lines += [f"# {md_inline(block[1])}", ""]
        elif kind == "h2":
            lines += ["", f"## {md_inline(block[1])}", ""]
        elif kind == "strong":
            lines += [f"**{md_inline(block[1])}**", ""]
        elif kind == "p":
            lines += [md_inline(block[1]), ""]
        elif kind == "quote":
            lines += ["", f"> {md_inline(block[1])}", ""]
        elif kind == "code":
            lines += [*md_code(block[1]), ""]
        elif kind == "list":
            lines += [f"- {md_inline(item)}" for item in block[1]] + [""]
        elif kind == "image":
            lines += [f"![{md_inline(block[1])}]({quote(block[2])})", ""]
        elif kind == "table":
            header, rows = block[1], block[2]
            lines += [f"| {' | '.join(map(md_inline, header))} |", "|" + "---|" * len(header)]
            lines += [f"| {' | '.join(map(md_inline, row))} |" for row in rows] + [""]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def html_page(result, chapter: str, lang: str = "en") -> str:
    """The feedback as an HTML page (``templates/feedback.html``), every piece of text escaped."""
    document = blocks(result, chapter, lang)
    title = next((one_line(block[1]) for block in document if block[0] == "h1"), "")
    return pages.render("feedback.html", lang, title=title, blocks=document)


def write_figures(result, feedback_dir: Path) -> None:
    """Write the student's figures to ``feedback/<student>-figures/`` and point the parts at them."""
    if not result.figures:
        return
    folder = f"{result.student_id}-figures"
    make_dirs(feedback_dir / folder)
    for part in result.book.parts.values():
        moved = []
        for name in part.figures:
            if name in result.figures:
                target = f"{folder}/{Path(name).name}"
                write_atomic(feedback_dir / target, base64.b64decode(result.figures[name]))
                moved.append(target)
        part.figures = moved
