"""Per-student feedback documents: what passed, what failed with its minimal example and hint."""

from __future__ import annotations

from graders import catalog
from graders.i18n import t
from graders.results import PASSED


def markdown(result, chapter: str, lang: str = "en") -> str:
    book = result.book
    earned, possible = book.total
    title = catalog.CHAPTERS[chapter].title_vi if lang == "vi" else catalog.CHAPTERS[chapter].title
    lines = [
        f"# {chapter} · {title} · {result.submission.student_id}",
        "",
        f"**{t('total', lang)}: {earned}/{possible}**",
        "",
        f"| {t('exercise', lang)} | {t('points', lang)} | {t('status', lang)} |",
        "|---|---|---|",
    ]
    rows = book.rows()
    for row in rows:
        lines.append(f"| {row.exercise} | {row.points}/{row.max_points} | {t(row.status, lang)} |")
    if result.error:
        lines += ["", f"> grading stopped early: {result.error.splitlines()[0]}"]
    for row in rows:
        failed = [p for p in row.parts if p.status != PASSED]
        if not failed or row.status == "not started":
            continue
        lines += ["", f"## {row.exercise}: {row.title}"]
        for part in failed:
            kind = t("kind:" + part.kind, lang) if part.kind else t(part.status, lang)
            lines += [
                "",
                f"**{part.part}** ({part.points}/{part.max_points}): {kind}",
                "",
                "```text",
                part.message.strip() or t(part.status, lang),
                "```",
            ]
            lines += [f"\n![{part.part}]({figure})" for figure in part.figures]
    if result.notes:
        lines += ["", f"## {t('notes', lang)}", ""]
        lines += [f"- {note}" for note in result.notes]
    integrity = [(k, v) for k, v in sorted(book.integrity.items()) if v]
    if integrity:
        lines += ["", f"## {t('integrity', lang)}", ""]
        lines += [f"- {exercise_id}: {item}" for exercise_id, items in integrity for item in items]
    return "\n".join(lines) + "\n"
