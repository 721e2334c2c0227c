"""Grade one chapter (or one exercise) as ``pytest exercises/chN`` does, in a pytest subprocess.

The subprocess writes its gradebook with ``--dtlab-report``; nothing is parsed from its terminal
output except, when grading itself broke (a collection error, pytest's own error, a signal, the
time limit), the lines that say why.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from graders.impl import KIT_ROOT
from graders.plugin.run_spec import GradingRun
from graders.student.fingerprint import PROFILE
from graders.words.vocabulary import t

#: wall-clock limit of grading one chapter: a hang costs one task deadline, so this is generous
TIMEOUT_S = 1800.0
_REASON_LINES = 3


@dataclass
class ChapterRun:
    chapter: str
    book: dict | None  # the gradebook as --dtlab-report writes it; None when grading broke
    error: str = ""  # why grading broke, in a few lines
    seconds: float = 0.0


def pytest_argv(run: GradingRun, nproc: int = 0) -> list[str]:
    """``pytest exercises/chN …`` of ``run``'s chapters; with ``nproc`` (one chapter), the same
    pytest as the driver of a world of ``nproc`` processes torchrun launches on this machine
    (``-m graders.run``)."""
    if not nproc:
        return [sys.executable, "-m", "pytest", *run.pytest_args(Path("."))]
    argv = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(nproc)]
    argv += ["--rdzv-backend", "c10d", "--rdzv-endpoint", "127.0.0.1:0", "--local-addr", "127.0.0.1"]
    return [*argv, "-m", "graders.run", *run.chapters, *run.options()]


def grade(
    run: GradingRun,
    chapter: str,
    *,
    exercise: str | None = None,
    exercises: tuple[str, ...] = (),
    kit_root: Path = KIT_ROOT,
    timeout: float = TIMEOUT_S,
    nproc: int = 0,
) -> ChapterRun:
    """Grade ``chapter`` of ``run``'s implementation (only ``exercise``'s tests, or ``exercises``',
    when given) with the student profile; with ``nproc``, in a world of that many processes
    torchrun launches."""
    narrowed = (exercise,) if exercise else tuple(exercises)
    runs = grade_together(
        run, (chapter,), exercises=narrowed, kit_root=kit_root, timeout=timeout, nproc=nproc
    )
    return runs[0]


def grade_together(
    run: GradingRun,
    chapters: tuple[str, ...],
    *,
    exercises: tuple[str, ...] = (),
    kit_root: Path = KIT_ROOT,
    timeout: float = TIMEOUT_S,
    nproc: int = 0,
) -> list[ChapterRun]:
    """Grade ``chapters`` of ``run``'s implementation in one pytest session (one interpreter, one
    world pool), with ``run``'s language, deadline and backend and the student profile (unless
    ``run`` says another), and split its gradebook by chapter (each chapter's time: the session's,
    shared by points); when grading broke, every chapter's run says why."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dtlab-check-") as tmp:
        report = Path(tmp) / "report.json"
        log = Path(tmp) / "pytest.log"
        session = replace(
            run,
            chapters=chapters,
            exercises=exercises,
            profile=run.profile or PROFILE,
            report=report,
            extra=("-q",),
        )
        argv = pytest_argv(session, nproc)
        try:
            rc = _run(argv, kit_root, log, timeout)
        except subprocess.TimeoutExpired:
            why = too_long(timeout, run.lang)
            return [ChapterRun(c, None, why, timeout) for c in chapters]
        seconds = _shares(chapters, time.monotonic() - started)
        output = log.read_text(encoding="utf-8", errors="replace")
        book = _read(report)
        if rc in (0, 1) and book is not None:  # 1: some tests failed, which is a grade
            return [ChapterRun(c, _chapter_book(book, c), "", seconds[c]) for c in chapters]
        why = _reason(rc, output, book is None, run.lang)
        return [ChapterRun(c, None, why, seconds[c]) for c in chapters]


def _shares(chapters: tuple[str, ...], seconds: float) -> dict[str, float]:
    from graders.catalog import CHAPTERS

    points = {c: CHAPTERS[c].points if c in CHAPTERS else 1 for c in chapters}
    return {c: seconds * points[c] / sum(points.values()) for c in chapters}


def _chapter_book(book: dict, chapter: str) -> dict:
    """The rows of ``book`` (a gradebook of several chapters) that are ``chapter``'s."""
    rows = [row for row in book["exercises"] if str(row.get("exercise", "")).startswith(chapter + ".")]
    return {**book, "exercises": rows}


def _run(argv: list[str], cwd: Path, log: Path, timeout: float) -> int:
    """Run ``argv`` in its own session (so that it and its worker worlds can be stopped together)."""
    with open(log, "wb") as out:
        child = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            return child.wait(timeout)
        except BaseException:  # the time limit, or Ctrl-C (which reaches only this session)
            _stop(child)
            raise


def _stop(child: subprocess.Popen) -> None:
    for signum, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(child.pid, signum)
        except ProcessLookupError:
            return
        try:
            child.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _read(report: Path) -> dict | None:
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("exercises"), list) else None


def too_long(timeout: float, lang: str | None) -> str:
    """Why grading broke at the time limit, in ``lang``."""
    return t("run:too long", lang or "en", seconds=timeout)


def _reason(rc: int, output: str, no_report: bool, lang: str | None = "en") -> str:
    """Why grading broke, in ``lang``: pytest's status and the lines of its output that name the
    cause (as pytest wrote them)."""
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    cause = [line for line in lines if line.startswith(("ERROR ", "ERROR:", "INTERNALERROR>", "E   "))]
    cause = cause or lines[-1:]
    lang = lang or "en"
    if rc < 0:
        head = t("run:killed", lang, signal=-rc)
    elif rc == 5:
        head = t("run:no tests", lang)
    else:
        head = t("run:status", lang, status=rc) + (t("run:no gradebook", lang) if no_report else "")
    return "\n".join([head, *cause[-_REASON_LINES:]])
