"""How one graded run ended, as the student's result: the driver's report, or why there is none.

The report counts only if the driver ended by itself or was stopped by us (a driver killed from
inside the tree reported nothing worth trusting). Without one, the result says why: the
wall-clock limit, the memory or process ceiling, a sandbox that could not be set up, the signal
that killed the driver, or the end of the driver's log. With one, it can still say that the run
stopped before every test had run (interrupted: the parts of the tests that did not run score
0), that the graders could not be collected, or that they collected nothing. Every part of the
chapter appears in the gradebook, and a part that was never graded says why.
"""

from __future__ import annotations

from graders import catalog
from graders.errors import Failure, FailureKind
from graders.gradebook import FAILED, Gradebook
from graders.grading.intake import Staged
from graders.grading.result import Settings, StudentResult
from graders.words.messages import say
from graders.words.text import in_lang


def interpret(
    staged: Staged,
    settings: Settings,
    messages: list[dict],
    timed_out: bool,
    hit: list[str],
    driver_log: str,
) -> StudentResult:
    """``messages``: what came on the pipe; ``hit``: the cgroup ceilings reached (``memory``, ``pids``)."""
    status = next((m["status"] for m in messages if "status" in m), {})
    reports = [m for m in messages if "report" in m]
    killed_inside = status.get("signal") and not status.get("terminated")
    report = reports[-1] if reports and not killed_inside else None
    limits = settings.limits
    if report is not None:
        book = Gradebook.from_dict(report["report"])
        error, kind = _incomplete(report.get("run", {}), settings)
    else:
        book = Gradebook(impl=staged.student_id, profile=settings.profile)
        error, kind = _no_report(messages, status, timed_out, hit, limits, driver_log)
    notes = list(staged.notes)
    if "memory" in hit and kind != FailureKind.MEMORY:
        notes.append(say("verdict:memory note", mb=limits.memory_mb))
    if "pids" in hit and kind != FailureKind.PIDS:
        notes.append(say("verdict:pids note", pids=limits.pids))
    if (report or {}).get("run", {}).get("disk_full"):
        notes.append(say("verdict:disk note", mb=limits.disk_mb))
    fill_unreported(book, settings.chapter, error)
    lang = settings.lang  # the result keeps its texts in the class's language (the store's key has it)
    return StudentResult(
        staged.student_id,
        book,
        error=in_lang(error, lang),
        error_kind=kind,
        notes=[in_lang(note, lang) for note in notes],
        timestamp=staged.timestamp,
        digest=staged.digest,
        timing=(report or {}).get("timing", {}),
        figures=_figures_of(report),
    )


def _incomplete(run: dict, settings: Settings) -> tuple[str, str]:
    """Why a run that reported is not a whole grading (``("", "")`` when it is)."""
    if run.get("collection_errors"):
        errors = "\n".join(run["collection_errors"])
        return say("verdict:not collected", errors=errors), FailureKind.INTERNAL
    if run and not run.get("collected"):
        kit, chapter = settings.kit_root, settings.chapter
        return say("verdict:collected nothing", kit=kit, chapter=chapter), FailureKind.INTERNAL
    if run.get("not_run"):
        said = say("verdict:interrupted", not_run=run["not_run"], collected=run["collected"])
        return said, FailureKind.INTERRUPTED
    return "", ""


def _no_report(
    messages: list[dict], status: dict, timed_out: bool, hit: list[str], limits, driver_log: str
) -> tuple[str, str]:
    driver_error = next((m["driver_error"] for m in messages if "driver_error" in m), "")
    if timed_out:
        return say("verdict:timeout", seconds=limits.wall_s), FailureKind.TIMEOUT
    if "memory" in hit:
        return say("verdict:memory", mb=limits.memory_mb), FailureKind.MEMORY
    if "pids" in hit:
        return say("verdict:pids", pids=limits.pids), FailureKind.PIDS
    if status.get("setup_error") or driver_error:
        return status.get("setup_error") or driver_error, FailureKind.INTERNAL
    if status.get("signal"):
        return say("verdict:killed", signal=status["signal"]), FailureKind.KILLED
    exit_code = status["exit"] if "exit" in status else say("verdict:no exit")
    return say("verdict:no report", exit=exit_code, log=driver_log), FailureKind.INTERNAL


def _figures_of(report: dict | None) -> dict[str, str]:
    """The PNG figures the driver sent with its report (base64, only names the book lists)."""
    if not report:
        return {}
    listed = {
        name
        for row in report["report"].get("exercises", [])
        for p in row["parts"]
        for name in p.get("figures", [])
    }
    return {
        name: data
        for name, data in report.get("figures", {}).items()
        if name in listed and isinstance(data, str)
    }


def fill_unreported(book: Gradebook, chapter: str, error: object) -> None:
    """Every part of the chapter appears in the gradebook, failed with the reason (a Text, or a
    str) if never graded."""
    why = error or say("verdict:part not reported")
    for exercise in catalog.CHAPTERS[chapter].exercises:
        for part in exercise.parts:
            if f"{exercise.id}::{part}" not in book.parts:
                book.record(exercise.id, part, FAILED, Failure.of(FailureKind.INTERNAL, why))
