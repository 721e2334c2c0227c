"""Grade a class: many submissions, in parallel, resumably, each in its own sandbox.

:func:`grade_batch` takes the staged submissions (:mod:`graders.grading.intake`), skips the
students whose stored result is still valid (:mod:`graders.grading.store`), grades the others
with ``jobs`` at a time, on this machine (threads driving one warm server) or on a Dask
cluster, and saves each result the moment it is complete. The teacher-facing files are written
only once every student has a result (:mod:`graders.grading.reports.outputs`).
"""

from __future__ import annotations

import os
import queue
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from graders import catalog
from graders.grading import sandbox
from graders.grading import sandboxed_run as runner
from graders.grading.intake import Staged
from graders.grading.reports.outputs import failure_kinds
from graders.grading.result import Settings, StudentResult
from graders.grading.store import ResultStore
from graders.infra.safe_text import one_line
from graders.words.numbers import format_number
from graders.words.text import in_lang
from graders.words.vocabulary import t


@dataclass
class BatchOutcome:
    results: list[StudentResult]  # every student, in id order (fresh and resumed)
    graded: list[str] = field(default_factory=list)  # graded in this run
    resumed: list[str] = field(default_factory=list)  # taken from a previous run
    seconds: float = 0.0
    isolation: str = ""  # a Text: the sandbox layers in every language


class Progress:
    """One line per finished student, with a bar and an estimate of the time left, in ``lang``."""

    def __init__(self, total: int, stream=None, lang: str = "en") -> None:
        self.total = total
        self.done = 0
        self.started = time.monotonic()
        self.stream = stream or sys.stdout
        self.lang = lang
        self.lock = threading.Lock()

    def __call__(self, result: StudentResult, resumed: bool = False) -> None:
        with self.lock:
            self.done += 1
            elapsed = time.monotonic() - self.started
            self.stream.write(self.line(result, resumed, elapsed) + "\n")
            self.stream.flush()

    def line(self, result: StudentResult, resumed: bool, elapsed: float) -> str:
        """The line of the ``self.done``-th student, ``elapsed`` seconds into the batch."""
        lang, width = self.lang, 20
        filled = round(width * self.done / max(1, self.total))
        left = self.total - self.done
        eta = _clock(elapsed / max(1, self.done) * left)
        eta = f" · {t('progress:eta', lang, left=eta)}" if left and not resumed else ""
        earned, possible = result.book.total
        why = f" · {one_line(result.error.splitlines()[0])[:70]}" if result.error else ""
        how = t("progress:resumed", lang) if resumed else f"{format_number(result.seconds, '5.1f', lang)} s"
        return (
            f"[{'#' * filled}{'.' * (width - filled)}] {self.done:>3}/{self.total} "
            f"{result.student_id:<20} {format_number(earned, '>3', lang)}/{possible:<3} {how}{eta}{why}"
        )


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def grade_batch(
    staged: list[Staged],
    settings: Settings,
    out_dir: Path,
    *,
    jobs: int = 2,
    executor: str = "local",
    scheduler: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> BatchOutcome:
    started = time.monotonic()
    store = ResultStore(out_dir, settings)
    todo, results, resumed = [], {}, []
    for item in staged:
        previous = None if force else store.load(item.student_id, item.digest)
        if previous is not None:
            previous = handed_in(previous, item)
            results[item.student_id] = previous
            resumed.append(item.student_id)
            if progress:
                progress(previous, resumed=True)
        else:
            todo.append(item)

    by_id = {item.student_id: item for item in todo}

    def finished(result: StudentResult) -> None:
        if result.student_id in by_id:
            result = handed_in(result, by_id[result.student_id])
        store.save(result)
        results[result.student_id] = result
        if progress:
            progress(result)

    if todo:
        if executor == "dask":
            _grade_with_dask(todo, settings, scheduler, finished)
        else:
            _grade_locally(todo, settings, jobs, finished)
    return BatchOutcome(
        [results[item.student_id] for item in staged if item.student_id in results],
        [item.student_id for item in todo],
        resumed,
        time.monotonic() - started,
        sandbox.detect().describe(),
    )


def handed_in(result: StudentResult, item: Staged) -> StudentResult:
    """``result`` with when and at which commit ``item`` was handed in: a stored result of the
    same files may have been graded from another commit or submission."""
    return replace(
        result,
        timestamp=item.timestamp,
        commit=item.commit,
        commit_time=item.commit_time,
        commit_late=item.commit_late,
    )


class LocalGrader:
    """Grades submissions on this machine: one warm server, ``jobs`` submissions at a time."""

    def __init__(self, jobs: int) -> None:
        from graders.grading.warm import WarmServer

        sandbox.require_safe(sandbox.detect())
        sandbox.reap_stale()  # what killed batches left: processes, cgroups, work folders
        self.base = Path(tempfile.mkdtemp(prefix=f"{sandbox.FOLDER_PREFIX}{os.getpid()}-"))
        os.chmod(self.base, 0o755)
        self.server = WarmServer(str(self.base))
        self.server.start()  # once, before the first submission: its start is no submission's time
        self.slots: queue.Queue[int] = queue.Queue()
        for slot in range(max(1, jobs)):
            self.slots.put(slot)

    def grade(self, item: Staged, settings: Settings) -> StudentResult:
        slot = self.slots.get()
        try:
            return runner.grade(item, settings, self.server, self.base, slot)
        finally:
            self.slots.put(slot)

    def close(self) -> None:
        self.server.close()
        shutil.rmtree(self.base, ignore_errors=True)


def _grade_locally(todo: list[Staged], settings: Settings, jobs: int, finished) -> None:
    grader = LocalGrader(jobs)
    stop = threading.Event()

    def work(item: Staged) -> StudentResult | None:
        if stop.is_set():
            return None
        result = grader.grade(item, settings)
        return None if stop.is_set() else result  # a result cut short by an interrupt is not kept

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        pending = {pool.submit(work, item) for item in todo}
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()
                if result is not None:
                    finished(result)
    except BaseException:
        stop.set()
        grader.server.close()  # its death takes every supervisor, driver and worker with it
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        grader.close()


# -- Dask ------------------------------------------------------------------------------------------

_WORKER_GRADER: LocalGrader | None = None
_WORKER_LOCK = threading.Lock()


def grade_on_worker(item: dict, settings: dict) -> dict:
    """A Dask task: grade one submission on whichever machine runs it, with its own warm server.

    The submission travels as its staged files, the result comes back as plain data; the
    worker's kit (its ``graders`` and test files) does the grading.
    """
    global _WORKER_GRADER
    with _WORKER_LOCK:
        if _WORKER_GRADER is None:
            _WORKER_GRADER = LocalGrader(jobs=64)
            import atexit

            atexit.register(_WORKER_GRADER.close)
    staged = Staged(**item)
    result = _WORKER_GRADER.grade(staged, Settings.from_dict(settings))
    return result.to_dict()


def _grade_with_dask(todo: list[Staged], settings: Settings, scheduler: str | None, finished) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SystemExit(t("class:no dask", settings.lang)) from None
    if not scheduler:
        raise SystemExit(t("class:no scheduler", settings.lang))
    plain = settings.to_dict()
    plain.pop("kit_root")  # each worker grades with its own kit
    with Client(scheduler, timeout=60) as client:
        futures = [
            client.submit(
                grade_on_worker, asdict(item), dict(plain), key=f"dtlab-{item.student_id}-{i}", pure=False
            )
            for i, item in enumerate(todo)
        ]
        try:
            for future in as_completed(futures):
                finished(StudentResult.from_dict(future.result()))
        except BaseException:
            client.cancel(futures)
            raise


# -- summary -----------------------------------------------------------------------------------------


def summary(outcome: BatchOutcome, chapter: str, lang: str = "en") -> str:
    """The class's numbers after a batch, in ``lang``: how many were graded, how fast, each
    exercise's mean, median and points, the failures by kind."""
    results = outcome.results
    exercises = catalog.CHAPTERS[chapter].exercises
    lines = []
    fresh = [r for r in results if r.student_id in set(outcome.graded)]
    rate = len(fresh) / outcome.seconds * 60 if outcome.seconds and fresh else 0.0
    counts = {"students": len(results), "fresh": len(fresh), "resumed": len(outcome.resumed)}
    lines.append(t("class:students", lang, **counts, seconds=outcome.seconds, rate=rate))
    overheads = [
        r.seconds - r.timing["tests_s"] for r in fresh if r.timing.get("tests_s") is not None and r.seconds
    ]
    if overheads:
        median, most = statistics.median(overheads), max(overheads)
        lines.append(t("class:overhead", lang, median=median, most=most))
    if results:
        head = [t(f"class:{word}", lang) for word in ("exercise", "mean", "median", "max", "total")]
        width = max([len(e.id) for e in exercises] + [len(head[0]), len(head[4])]) + 2
        mean_w, median_w, max_w = max(7, len(head[1]) + 1), max(8, len(head[2]) + 1), max(6, len(head[3]) + 1)
        lines.append("")
        lines.append(f"{head[0]:<{width}}{head[1]:>{mean_w}}{head[2]:>{median_w}}{head[3]:>{max_w}}")
        for exercise in exercises:
            points = [
                next((row.points for row in r.book.rows() if row.exercise == exercise.id), 0) for r in results
            ]
            mean, median = statistics.mean(points), statistics.median(points)
            lines.append(
                f"{exercise.id:<{width}}{format_number(mean, f'>{mean_w}.2f', lang)}"
                f"{format_number(median, f'>{median_w}.1f', lang)}{exercise.points:>{max_w}}"
            )
        totals = [r.book.total[0] for r in results]
        mean, median = statistics.mean(totals), statistics.median(totals)
        lines.append(
            f"{head[4]:<{width}}{format_number(mean, f'>{mean_w}.2f', lang)}"
            f"{format_number(median, f'>{median_w}.1f', lang)}{catalog.CHAPTERS[chapter].points:>{max_w}}"
        )
    kinds = Counter(kind for r in results for kind in failure_kinds(r))
    if kinds:
        lines.append("")
        by_kind = ", ".join(f"{_kind_named(k, lang)} {n}" for k, n in kinds.most_common())
        lines.append(t("class:failures by kind", lang) + by_kind)
    stopped = [r for r in results if r.error]
    for result in stopped:
        kind = _kind_named(result.error_kind, lang)
        lines.append(f"  {result.student_id}: {kind}: {one_line(result.error.splitlines()[0])}")
    lines.append("")
    lines.append(t("class:isolation", lang, isolation=in_lang(outcome.isolation, lang)))
    return "\n".join(lines)


def _kind_named(kind: str, lang: str) -> str:
    """A failure kind in the class summary: in English its name as the CSVs write it (``not
    started``, ``hang``), in another language what it means there."""
    return kind if lang == "en" else t("kind:" + kind, lang)


def _stacked(name: str, width: int) -> list[str]:
    """``name`` on lines of at most ``width`` characters, broken after its underscores (a part
    longer than ``width`` keeps a line of its own)."""
    lines: list[str] = []
    for part in name.replace("_", "_\0").split("\0"):
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return lines


def render_gradebook(results: list[StudentResult], chapter: str, lang: str = "en") -> str:
    exercises = catalog.CHAPTERS[chapter].exercises
    names = [e.id.split(".", 1)[1] for e in exercises]
    student, total = t("class:student", lang), t("class:total", lang)
    width = max([len(r.student_id) for r in results] + [len(student)]) + 2
    stacked = [_stacked(name, 10) for name in names]  # whole names, broken after underscores
    height = max(len(cell) for cell in stacked)
    header = []
    for row in range(height):
        cells = "".join(
            f"{(cell[row - height + len(cell)] if row >= height - len(cell) else ''):>11}" for cell in stacked
        )
        first, last = (student, total) if row == height - 1 else ("", "")
        header.append(f"{first:<{width}}{cells}{last:>9}")
    lines = [*header, "-" * len(header[-1])]
    for result in results:
        by_id = {row.exercise: row for row in result.book.rows()}
        cells = "".join(
            f"{f'{by_id[e.id].points}/{e.points}' if e.id in by_id else '-':>11}" for e in exercises
        )
        earned, possible = result.book.total
        lines.append(f"{result.student_id:<{width}}{cells}{f'{earned}/{possible}':>9}")
    return "\n".join(lines)
