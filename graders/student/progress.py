"""``dtlab progress``: one table over every chapter, re-grading only the chapters that changed.

A chapter is graded again only when the hash of what decides its grade changed (its student
files, its test files, the graders, the kit's version; :mod:`graders.student.fingerprint`);
otherwise its row comes from ``.dtlab/progress.json``. With nothing changed the command reads
some files, hashes them and prints: it imports neither torch nor pytest.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import astuple, dataclass
from pathlib import Path

from graders import catalog
from graders.authoring import pristine
from graders.gradebook import NOT_STARTED, PASSED
from graders.impl import KIT_ROOT, Impl
from graders.plugin.run_spec import GradingRun
from graders.student import chapter_run as runner
from graders.student.fingerprint import chapter_key
from graders.student.state import DEFAULT_PATH, ChapterRecord, ProgressState
from graders.words.chapter_names import unknown_chapters
from graders.words.numbers import format_number
from graders.words.text import in_lang
from graders.words.vocabulary import t

CHECKPOINT = "✓"


@dataclass
class ChapterLine:
    chapter: str
    record: ChapterRecord | None = None
    error: str = ""  # why grading the chapter broke
    graded_now: bool = False
    seconds: float = 0.0  # how long grading it took now


def graded_record(run: runner.ChapterRun, key: str) -> ChapterRecord:
    return ChapterRecord.from_book(key, run.book, run.seconds, time.strftime("%Y-%m-%dT%H:%M:%S%z"))


def progress(
    run: GradingRun,
    chapters: list[str] | None = None,
    *,
    refresh: bool = False,
    state_path: Path = DEFAULT_PATH,
    kit_root: Path = KIT_ROOT,
    log=sys.stderr,
) -> list[ChapterLine]:
    """Each chapter's line: from the state file where nothing changed, else graded now (and stored).

    A chapter graded now is graded in two ways at once: the exercises of its files that are still
    the shipped stubs are "not started" by their digest (:mod:`graders.authoring.pristine`), with
    nothing run; the others by pytest, as ``pytest exercises/chN`` grades them, two chapters at a
    time where the machine has the cores. ``run`` is the student's (implementation, language,
    deadline, backend)."""
    impl, lang = run.impl, run.lang
    state = ProgressState.load(state_path)
    if state.replaced:
        print(f"{t('state replaced', lang)} ({state.path}: {state.replaced})", file=log)
    manifest = pristine.load(kit_root / "exercises")
    lines: dict[str, ChapterLine] = {}
    keys: dict[str, str] = {}
    stubbed: dict[str, set[str]] = {}
    for chapter in chapters or list(catalog.CHAPTERS):
        keys[chapter] = key = chapter_key(run, chapter, kit_root)  # before grading: an edit re-grades
        record = None if refresh else state.fresh(chapter, key)
        if record is not None:
            lines[chapter] = ChapterLine(chapter, record)
        else:
            stubbed[chapter] = _stubbed_exercises(impl, chapter, manifest)
    to_grade = {
        chapter: tuple(e.id for e in catalog.CHAPTERS[chapter].exercises if e.id not in untouched)
        for chapter, untouched in stubbed.items()
    }
    for chapter in [c for c, rest in to_grade.items() if not rest]:  # nothing of the student's yet
        del to_grade[chapter]
        lines[chapter] = _store(state, runner.ChapterRun(chapter, {"exercises": []}), keys, stubbed, log)
    if to_grade:
        print(f"{t('grading now', lang)} {', '.join(to_grade)} …", file=log, flush=True)
    weights = {c: _weight(state, c) for c in to_grade}
    for graded in _grade_all(run, to_grade, kit_root, weights):
        print(f"  {graded.chapter}: {format_number(graded.seconds, '.1f', lang)} s", file=log, flush=True)
        lines[graded.chapter] = _store(state, graded, keys, stubbed, log)
    return [lines[chapter] for chapter in chapters or list(catalog.CHAPTERS)]


#: sessions graded side by side by a first ``dtlab progress`` (each a pytest of its own)
PARALLEL_SESSIONS = max(1, min(2, os.cpu_count() or 1))


def _grade_all(run: GradingRun, to_grade: dict[str, tuple[str, ...]], kit_root: Path, weights: dict):
    """Each chapter of ``to_grade`` (only the exercises named), as its session ends: the chapters
    shared among :data:`PARALLEL_SESSIONS` pytest sessions of about equal ``weights`` (one
    interpreter and one world pool for several chapters); a chapter of a session that broke is
    graded again alone, so that one chapter's trouble is its own."""

    def grade(chapters: tuple[str, ...]) -> list[runner.ChapterRun]:
        narrowed = [e for c in chapters for e in to_grade[c]]
        full = all(len(to_grade[c]) == len(catalog.CHAPTERS[c].exercises) for c in chapters)
        try:
            runs = runner.grade_together(
                run, chapters, exercises=() if full else tuple(narrowed), kit_root=kit_root
            )
        except OSError as exc:  # pytest could not even start (no such interpreter, no space for its files)
            why = t("run:no pytest", run.lang, error=exc)
            return [runner.ChapterRun(c, None, why) for c in chapters]
        if len(chapters) > 1 and any(graded.book is None for graded in runs):
            return [graded for c in chapters for graded in grade((c,))]
        return runs

    if not to_grade:
        return
    sessions = _share(list(to_grade), weights, PARALLEL_SESSIONS)
    with ThreadPoolExecutor(max_workers=len(sessions)) as pool:
        for future in as_completed([pool.submit(grade, chapters) for chapters in sessions]):
            yield from future.result()


def _share(chapters: list[str], weights: dict[str, float], sessions: int) -> list[tuple[str, ...]]:
    """``chapters`` in at most ``sessions`` groups of about equal weight (heaviest first, each to
    the lightest group), each in the course's order."""
    groups: list[list[str]] = [[] for _ in range(min(sessions, len(chapters)))]
    loads = [0.0] * len(groups)
    for chapter in sorted(chapters, key=lambda c: -weights[c]):
        lightest = loads.index(min(loads))
        groups[lightest].append(chapter)
        loads[lightest] += weights[chapter]
    order = list(catalog.CHAPTERS)
    return [tuple(sorted(group, key=order.index)) for group in groups if group]


def _weight(state: ProgressState, chapter: str) -> float:
    """How long grading ``chapter`` is expected to take: its last time, else its points."""
    last = state.chapters.get(chapter)
    return last.seconds if last is not None and last.seconds > 0 else float(catalog.CHAPTERS[chapter].points)


def _stubbed_exercises(impl: Impl, chapter: str, manifest: dict[str, str]) -> set[str]:
    """The exercises of ``chapter`` whose file is still the shipped stub."""
    info = catalog.CHAPTERS[chapter]
    untouched = pristine.untouched(impl, chapter, info.modules, manifest)
    return {e.id for e in info.exercises if e.module in untouched}


def _store(state: ProgressState, run: runner.ChapterRun, keys: dict, stubbed: dict, log) -> ChapterLine:
    """The chapter's line, its record stored: the run's gradebook, and "not started" for the
    exercises whose file is still the stub."""
    chapter = run.chapter
    if run.book is None:  # not stored: the next run tries again
        return ChapterLine(chapter, error=run.error, graded_now=True, seconds=run.seconds)
    run.book["exercises"] = [
        {"exercise": e.id, "status": NOT_STARTED, "points": 0, "max_points": e.points}
        for e in catalog.CHAPTERS[chapter].exercises
        if e.id in stubbed[chapter]
    ] + [row for row in run.book["exercises"] if row.get("exercise") not in stubbed[chapter]]
    record = graded_record(run, keys[chapter])
    try:
        state.store(chapter, record)
    except OSError as exc:  # a read-only kit: the table is still right, only not kept
        print(f"{state.path}: {exc}", file=log)
    return ChapterLine(chapter, record, graded_now=True, seconds=run.seconds)


@dataclass(frozen=True)
class Counts:
    passed: int
    failed: int
    not_started: int
    points: int
    possible: int


def counts(chapter: str, record: ChapterRecord) -> Counts:
    """Exercises passed / failed / not started and points, against the catalog's chapter. An
    exercise that is neither passed nor not started (failed, or some part not run) counts as failed."""
    info = catalog.CHAPTERS[chapter]
    marks = [record.exercises.get(e.id) for e in info.exercises]
    passed = sum(1 for m in marks if m is not None and m.status == PASSED)
    not_started = sum(1 for m in marks if m is not None and m.status == NOT_STARTED)
    points = sum(m.points for m in marks if m is not None)
    return Counts(passed, len(marks) - passed - not_started, not_started, points, info.points)


def complete(c: Counts) -> bool:
    return c.possible > 0 and c.points == c.possible


def _title(chapter: str, lang: str) -> str:
    return catalog.CHAPTERS[chapter].title_in(lang)


def render(lines: list[ChapterLine], lang: str = "en") -> str:
    """The table: a row per chapter (✓ when every point is earned, or why grading broke), the
    total, and which chapters were graded now."""
    names = {line.chapter: f"{line.chapter}  {_title(line.chapter, lang)}" for line in lines}
    width = max([len(t("chapter", lang))] + [len(name) + len(CHECKPOINT) + 1 for name in names.values()]) + 2
    heads = [t("passed", lang), t("failed", lang), t("not started", lang), t("points", lang)]
    widths = [max(len(h), 6) + 2 for h in heads]

    def row(name: str, cells: list[str]) -> str:
        return f"{name:<{width}}" + "".join(f"{cell:>{w}}" for cell, w in zip(cells, widths))

    header = row(t("chapter", lang), heads)
    out = [header, "-" * len(header)]
    total = Counts(0, 0, 0, 0, 0)
    for line in lines:
        name = names[line.chapter]
        if line.record is None:
            first, *rest = (line.error or "?").splitlines()
            out.append(f"{name:<{width}}{t('grading error', lang)}: {first}")
            out += [" " * width + more for more in rest]
            c = Counts(0, 0, 0, 0, catalog.CHAPTERS[line.chapter].points)
        else:
            c = counts(line.chapter, line.record)
            mark = f" {CHECKPOINT}" if complete(c) else ""
            out.append(
                row(
                    name + mark,
                    [str(c.passed), str(c.failed), str(c.not_started), f"{c.points}/{c.possible}"],
                )
            )
        total = Counts(*(a + b for a, b in zip(astuple(total), astuple(c))))
    out.append("-" * len(header))
    out.append(
        row(
            t("total", lang),
            [
                str(total.passed),
                str(total.failed),
                str(total.not_started),
                f"{total.points}/{total.possible}",
            ],
        )
    )
    now = [
        f"{line.chapter} ({format_number(line.seconds, '.1f', lang)} s)" for line in lines if line.graded_now
    ]
    kept = [line.chapter for line in lines if not line.graded_now]
    if now:
        out.append(f"{t('graded now', lang)}: {', '.join(now)}")
    if kept:
        out.append(f"{t('unchanged', lang)}: {', '.join(kept)}")
    graded = [(line.chapter, counts(line.chapter, line.record)) for line in lines if line.record is not None]
    # a chapter with a failing exercise is the work in hand; then the first one not finished
    failing = [chapter for chapter, c in graded if c.failed]
    todo = failing or [chapter for chapter, c in graded if not complete(c)]
    if todo:
        out.append(f"{t('next', lang)}: dtlab check {todo[0]}")
    return "\n".join(out)


def main(run: GradingRun, chapters: list[str], *, refresh: bool, state_path: Path) -> int:
    unknown = unknown_chapters(chapters)
    if unknown:
        print(in_lang(unknown, run.lang), file=sys.stderr)
        return 2
    try:
        lines = progress(run, chapters, refresh=refresh, state_path=state_path)
    except KeyboardInterrupt:
        print("\n" + t("progress:interrupted", run.lang, path=state_path), file=sys.stderr)
        return 130
    print(render(lines, run.lang))
    return 1 if any(line.record is None for line in lines) else 0
