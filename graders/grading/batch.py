"""Grade a folder of submissions, each in its own process tree, and write the gradebook.

Every submission is graded by a fresh ``pytest`` process running the kit's chapter graders with
``--impl`` pointing at a private copy of the submission's files, the deterministic ``grading``
hypothesis profile, and a wall-clock limit. One submission that hangs, crashes or misbehaves
cannot touch another: it only has its own processes and its own work folder.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from graders import catalog
from graders.impl import KIT_ROOT
from graders.results import FAILED, Gradebook

SUBMISSION_TIMEOUT = 600.0


@dataclass(frozen=True)
class Submission:
    student_id: str
    path: Path


@dataclass
class StudentResult:
    submission: Submission
    book: Gradebook
    seconds: float
    error: str = ""  # why grading itself failed (timeout, no report)
    notes: list[str] = field(default_factory=list)
    figures: dict[str, bytes] = field(default_factory=dict)  # report-relative path -> PNG bytes


def discover(submissions_dir: Path) -> list[Submission]:
    """One submission per sub-folder, in name order."""
    if not submissions_dir.is_dir():
        raise FileNotFoundError(f"{submissions_dir} is not a folder of submissions")
    return [
        Submission(entry.name, entry)
        for entry in sorted(submissions_dir.iterdir())
        if entry.is_dir() and not entry.name.startswith(".")
    ]


def stage(submission: Submission, chapter: str, workdir: Path) -> tuple[Path, list[str]]:
    """Copy the chapter's expected files (and nothing else) into ``workdir/<chapter>``."""
    chapter_dir = workdir / "impl" / chapter
    chapter_dir.mkdir(parents=True)
    source = submission.path / chapter if (submission.path / chapter).is_dir() else submission.path
    notes = []
    for module in catalog.CHAPTERS[chapter].modules:
        candidate = source / f"{module}.py"
        if candidate.is_file() and not candidate.is_symlink():
            shutil.copyfile(candidate, chapter_dir / candidate.name)
        else:
            notes.append(f"{module}.py is missing from the submission")
    return chapter_dir.parent, notes


def grade_one(
    submission: Submission,
    chapter: str,
    profile: str,
    timeout: float = SUBMISSION_TIMEOUT,
    deadline: float | None = None,
) -> StudentResult:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"dtlab-grade-{submission.student_id}-") as tmp:
        workdir = Path(tmp)
        impl, notes = stage(submission, chapter, workdir)
        report = workdir / "report.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            str(KIT_ROOT / "exercises" / chapter),
            f"--impl={impl}",
            f"--hypothesis-profile={profile}",
            f"--dtlab-report={report}",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--rootdir={KIT_ROOT}",
        ]
        if deadline:
            command.append(f"--dtlab-deadline={deadline}")
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        error = ""
        try:
            with open(workdir / "pytest.log", "wb") as log:
                subprocess.run(
                    command,
                    cwd=workdir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                    timeout=timeout,
                    start_new_session=True,
                    check=False,
                )
        except subprocess.TimeoutExpired:
            error = f"grading took longer than {timeout:g} s and was stopped"
        if report.exists():
            book = Gradebook.from_dict(_read_json(report))
        else:
            error = error or "the graders produced no report:\n" + _tail(workdir / "pytest.log")
            book = Gradebook(impl=submission.student_id, profile=profile)
        _fill_unreported(book, chapter, error)
        figures = _read_figures(book, workdir)
    return StudentResult(submission, book, time.monotonic() - started, error, notes, figures)


def _read_figures(book: Gradebook, workdir: Path) -> dict[str, bytes]:
    """The PNG files the report lists, read before the work folder goes away."""
    found = {}
    for part in book.parts.values():
        for name in part.figures:
            path = (workdir / name).resolve()
            if path.is_file() and path.is_relative_to(workdir.resolve()):
                found[name] = path.read_bytes()
    return found


def _fill_unreported(book: Gradebook, chapter: str, error: str) -> None:
    """Every exercise of the chapter appears in the gradebook, failed if it was never graded."""
    for exercise in catalog.CHAPTERS[chapter].exercises:
        for part in exercise.parts:
            if f"{exercise.id}::{part}" not in book.parts:
                book.record(exercise.id, part, FAILED, "internal", error or "not graded")


def _read_json(path: Path) -> dict:
    import json

    return json.loads(path.read_text())


def _tail(path: Path, nbytes: int = 2000) -> str:
    try:
        return path.read_bytes()[-nbytes:].decode("utf-8", "replace")
    except OSError:
        return ""


def grade_all(
    submissions: list[Submission],
    chapter: str,
    profile: str = "grading",
    jobs: int = 1,
    timeout: float = SUBMISSION_TIMEOUT,
    deadline: float | None = None,
    progress=None,
) -> list[StudentResult]:
    def work(submission: Submission) -> StudentResult:
        result = grade_one(submission, chapter, profile, timeout, deadline)
        if progress:
            progress(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as executor:
        return list(executor.map(work, submissions))


# -- outputs ----------------------------------------------------------------------------------


def write_outputs(results: list[StudentResult], chapter: str, out_dir: Path, lang: str = "en") -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    exercises = catalog.CHAPTERS[chapter].exercises
    rows = []
    for result in results:
        by_id = {row.exercise: row for row in result.book.rows()}
        earned, possible = result.book.total
        row = {"student_id": result.submission.student_id}
        row.update({e.id: by_id[e.id].points if e.id in by_id else 0 for e in exercises})
        row.update(score=earned, max_score=possible)
        rows.append(row)
    _write_csv(out_dir / "grades.csv", ["student_id", *[e.id for e in exercises], "score", "max_score"], rows)
    feedback_dir = out_dir / "feedback"
    feedback_dir.mkdir(exist_ok=True)
    for result in results:
        from graders.grading.feedback import markdown

        _write_figures(result, feedback_dir)
        (feedback_dir / f"{result.submission.student_id}.md").write_text(markdown(result, chapter, lang))


def _write_figures(result: StudentResult, feedback_dir: Path) -> None:
    """Copy the student's figures to ``feedback/<student>-figures/`` and point the parts at them."""
    if not result.figures:
        return
    folder = f"{result.submission.student_id}-figures"
    (feedback_dir / folder).mkdir(exist_ok=True)
    for part in result.book.parts.values():
        moved = []
        for name in part.figures:
            if name in result.figures:
                target = f"{folder}/{Path(name).name}"
                (feedback_dir / target).write_bytes(result.figures[name])
                moved.append(target)
        part.figures = moved


def _write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)


def render_gradebook(results: list[StudentResult], chapter: str) -> str:
    exercises = catalog.CHAPTERS[chapter].exercises
    names = [e.id.split(".", 1)[1] for e in exercises]
    width = max(len(r.submission.student_id) for r in results) + 2 if results else 10
    header = f"{'student':<{width}}" + "".join(f"{n[:10]:>11}" for n in names) + f"{'total':>9}"
    lines = [header, "-" * len(header)]
    for result in results:
        by_id = {row.exercise: row for row in result.book.rows()}
        cells = "".join(
            f"{f'{by_id[e.id].points}/{e.points}' if e.id in by_id else '-':>11}" for e in exercises
        )
        earned, possible = result.book.total
        lines.append(f"{result.submission.student_id:<{width}}{cells}{f'{earned}/{possible}':>9}")
    return "\n".join(lines)
