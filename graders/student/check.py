"""``dtlab check chN [EXERCISE]``: grade one chapter or one exercise with the student profile and
say, per failing part, what was expected and what was seen, on which rank, the smallest example
and the hint, without pytest's tracebacks; ``--explain`` adds the exercise's theory recap and
its hints, level by level (:mod:`graders.words.hints`). Then the points table.

Checking a whole chapter grades exactly what ``dtlab progress`` would, so its result is stored
in the progress file too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from graders import catalog
from graders.errors import Failure, FailureKind
from graders.gradebook import FAILED, NOT_RUN, NOT_STARTED, PASSED, ExerciseRow, Gradebook, PartResult
from graders.impl import KIT_ROOT
from graders.infra.safe_text import clean
from graders.plugin.run_spec import GradingRun
from graders.student import chapter_run as runner
from graders.student.fingerprint import PROFILE, chapter_key
from graders.student.progress import graded_record
from graders.student.state import DEFAULT_PATH, ProgressState
from graders.words.chapter_names import unknown_chapters
from graders.words.messages import say
from graders.words.text import exception_text
from graders.words.vocabulary import part_name, t

MAX_BODY_LINES = 24
INDENT = "    "


class UnknownTarget(ValueError):
    """The chapter or exercise named does not exist (the message lists what does)."""


def resolve(chapter: str, exercise: str | None = None) -> tuple[str, str | None]:
    """``("ch2", "ch2.ring_all_reduce")`` from ``ch2 ring_all_reduce``, ``ch2 ch2.ring_all_reduce``
    or ``ch2.ring_all_reduce``; ``(chapter, None)`` for a whole chapter."""
    if exercise is None and "." in chapter:
        chapter, exercise = chapter.split(".", 1)
    unknown = unknown_chapters([chapter])
    if unknown:
        raise UnknownTarget(unknown)
    if exercise is None:
        return chapter, None
    name = exercise.removeprefix(f"{chapter}.")
    known = [e.id for e in catalog.CHAPTERS[chapter].exercises]
    if f"{chapter}.{name}" not in known:
        names = ", ".join(e.split(".", 1)[1] for e in known)
        raise UnknownTarget(say("target:no exercise", chapter=chapter, exercise=exercise, names=names))
    return chapter, f"{chapter}.{name}"


def _indented(lines: list[str], lang: str) -> list[str]:
    if len(lines) > MAX_BODY_LINES:
        lines = lines[:MAX_BODY_LINES] + [t("more lines", lang, count=len(lines) - MAX_BODY_LINES)]
    return [INDENT + line for line in lines]


def _level_one_hint(exercise_id: str, lang: str) -> list[str]:
    from graders.words import hints

    try:
        return hints.hints(exercise_id, lang)[:1]
    except KeyError:
        return []


def part_blocks(row: ExerciseRow, lang: str, named: dict | None = None) -> list[str]:
    """One block per distinct failure of the exercise (parts failing alike share it), and one line
    for its parts that are not started or did not run. ``named``: the known misconception the
    exercise's code behaves like (``Gradebook.named``), said in the first block before the example,
    in place of the case's hint."""
    failed: dict[str, list[PartResult]] = {}
    undone: dict[str, list[PartResult]] = {}
    for part in row.parts:
        if part.status == FAILED:
            failed.setdefault(json.dumps(part.failure, sort_keys=True), []).append(part)
        elif part.status in (NOT_STARTED, NOT_RUN):
            undone.setdefault(_not_done(part, lang), []).append(part)
    lines = [f"○ {row.exercise} {_parts(parts, lang)}: {why}" for why, parts in undone.items()]
    for first, parts in enumerate(failed.values()):
        lines += ["", *_failure_block(row.exercise, parts, lang, named, said=first == 0)]
    return lines


def _failure_block(
    exercise: str, parts: list[PartResult], lang: str, named: dict | None = None, *, said: bool = True
) -> list[str]:
    """What was expected and seen, on which rank, the known misconception the code behaves like
    (in the exercise's first block), the smallest example and the hint (the case's, where no
    misconception was named)."""
    why = parts[0].why() or Failure(parts[0].kind or FailureKind.INTERNAL)
    head = f"✗ {exercise} {_parts(parts, lang)}: {t('kind:' + why.kind, lang)}"
    if why.rank:
        head += f" · {t('on rank', lang)} {why.rank}"
    body = [clean(line).rstrip() for line in why.text("body", lang).strip("\n").splitlines()]
    if why.picture:
        body += [clean(line).rstrip() for line in why.text("picture", lang).splitlines()]
    block = [head, *_indented(body or [t("internal without message", lang)], lang)]
    if named and said:
        text = named["said"].get(lang, named["said"]["en"])
        block.append(f"{INDENT}{t('likely misconception', lang)}: {clean(text)}")
    if why.example:
        block.append(f"{INDENT}{t('example', lang)}: {clean(why.example)}")
    if named:
        return block
    hints = [why.text("hint", lang)] if why.hint else _level_one_hint(exercise, lang)
    return block + [f"{INDENT}{t('hint', lang)}: {clean(hint)}" for hint in hints]


def _parts(parts: list[PartResult], lang: str) -> str:
    """``[result, ring] (0/3)``: the parts, named in ``lang``, and their points."""
    points = f"{sum(p.points for p in parts)}/{sum(p.max_points for p in parts)}"
    return f"[{', '.join(part_name(p.part, lang) for p in parts)}] ({points})"


def _not_done(part: PartResult, lang: str) -> str:
    if part.status == NOT_RUN:
        return t(NOT_RUN, lang)
    why = part.why()
    detail = why.text("body", lang) if why is not None else ""
    return f"{t(NOT_STARTED, lang)}: {detail or t('not started detail', lang)}"


def explanation(exercise_id: str, lang: str) -> list[str]:
    """The exercise's theory recap, and where its graded hints are (``dtlab hint`` gives them one
    level at a time, so they are not all printed here)."""
    from graders.words import hints

    chapter, name = exercise_id.split(".", 1)
    lines = ["", f"{exercise_id} · {t('recap', lang)}:"]
    try:
        lines += [INDENT + line for line in hints.recap(exercise_id, lang).strip().splitlines()]
    except KeyError:
        lines.append(INDENT + t("no recap", lang))
    return lines + [f"{t('hint levels', lang)}: dtlab hint {chapter} {name}"]


def render(book: Gradebook, scope: list[str], *, explain: bool = False, lang: str = "en") -> str:
    rows = {row.exercise: row for row in book.rows()}
    lines: list[str] = []
    for exercise_id in scope:
        row = rows.get(exercise_id)
        if row is None:
            lines.append(f"○ {exercise_id}: {t(NOT_RUN, lang)}")
        elif row.status != PASSED:
            lines += part_blocks(row, lang, book.named.get(exercise_id))
        if explain and (len(scope) == 1 or row is None or row.status != PASSED):
            lines += explanation(exercise_id, lang)
    table = book.render(lang)
    return "\n".join([*lines, "", table] if lines else [table]).strip("\n")


def passed(book: Gradebook, scope: list[str]) -> bool:
    rows = {row.exercise: row for row in book.rows()}
    return all(exercise_id in rows and rows[exercise_id].status == PASSED for exercise_id in scope)


def main(
    chapter: str,
    exercise: str | None,
    *,
    run: GradingRun,
    explain: bool = False,
    state_path: Path = DEFAULT_PATH,
    kit_root: Path = KIT_ROOT,
    nproc: int = 0,
) -> int:
    """Grade ``chapter`` (or ``exercise``) as ``run`` (the command's: implementation, language,
    deadline, backend) says, with the student profile. ``nproc``: grade in a world of that many
    processes torchrun launches (``--launcher torchrun``); its result is not kept as the chapter's
    progress (fewer ranks skip tests)."""
    lang = run.lang
    try:
        chapter, exercise = resolve(chapter, exercise)
    except UnknownTarget as exc:
        print(f"dtlab check: {exception_text(exc, lang)}", file=sys.stderr)
        return 2
    target = exercise or chapter
    key = chapter_key(run, chapter, kit_root) if exercise is None and not nproc else ""
    said = t("run:grading", lang, target=target, impl=run.impl.label, profile=run.profile or PROFILE)
    print(said, file=sys.stderr, flush=True)
    try:
        graded = runner.grade(run, chapter, exercise=exercise, kit_root=kit_root, nproc=nproc)
    except KeyboardInterrupt:
        print("\n" + t("run:interrupted", lang), file=sys.stderr)
        return 130
    if graded.book is None:
        print(f"{target}: {t('grading error', lang)}: {graded.error}")
        return 1
    if key:  # the whole chapter, graded as dtlab progress grades it
        ProgressState.load(state_path).store(chapter, graded_record(graded, key))
    book = Gradebook.from_dict(graded.book)
    scope = [exercise] if exercise else [e.id for e in catalog.CHAPTERS[chapter].exercises]
    print(render(book, scope, explain=explain, lang=lang))
    ok = passed(book, scope)
    again = f"dtlab check {chapter}" + (f" {exercise.split('.', 1)[1]}" if exercise else "")
    print("\n" + (t("all passed", lang) if ok else f"{t('rerun', lang)}: {again}"))
    return 0 if ok else 1
