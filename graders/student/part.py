"""``dtlab part ch2.broadcast tree``: grade one exercise part and exit 0 only when it earned all its
points. GitHub Classroom's autograding runs it once per part (``.github/workflows/classroom.yml``
of a release made with ``dtlab release --github-classroom``): a step scores its part's points when
the command exits 0, so the steps' points add up to the chapter's score.

``--gradebooks DIR`` grades the whole chapter once and keeps its gradebook in ``DIR``, named by the
chapter, the profile and the hash of what decides the grade (the chapter's student files, its
tests, the kit's graders: :func:`graders.student.fingerprint.chapter_key`); every later part of the
same code reads it instead of grading again. A chapter's seventeen steps cost one grading, and each
step's verdict is the part's line of that one gradebook. Without it, only the exercise is graded.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path

from graders import catalog
from graders.gradebook import NOT_RUN, PASSED, Gradebook
from graders.impl import KIT_ROOT
from graders.infra.files import write_atomic
from graders.plugin.run_spec import GradingRun
from graders.student.chapter_run import TIMEOUT_S, ChapterRun, _read, _reason, _run, too_long
from graders.student.check import UnknownTarget, part_blocks, resolve
from graders.student.fingerprint import chapter_key
from graders.words.messages import say
from graders.words.text import exception_text
from graders.words.vocabulary import part_name, t

#: the profile a part is graded with unless told: the one the teacher's grading uses
PROFILE = "grading"


def resolve_part(target: str, part: str) -> tuple[str, str, str]:
    """``("ch2", "ch2.broadcast", "tree")`` from ``ch2.broadcast`` and ``tree``."""
    chapter, exercise = resolve(target)
    if exercise is None:
        raise UnknownTarget(say("target:name an exercise", example=catalog.CHAPTERS[chapter].exercises[0].id))
    parts = catalog.exercise(exercise).parts
    if part not in parts:
        raise UnknownTarget(say("target:no part", exercise=exercise, part=part, parts=", ".join(parts)))
    return chapter, exercise, part


def kept_path(folder: Path, run: GradingRun, chapter: str, kit_root: Path = KIT_ROOT) -> Path:
    """Where ``--gradebooks`` keeps ``chapter``'s gradebook for exactly this code, kit and run."""
    profile = _profile(run)
    key = hashlib.sha256(f"{chapter_key(run, chapter, kit_root)}; profile {profile}".encode()).hexdigest()
    return Path(folder).expanduser() / f"{chapter}-{profile}-{key[:24]}.json"


def _profile(run: GradingRun) -> str:
    return run.profile or PROFILE


def grade(
    run: GradingRun,
    chapter: str,
    exercises: tuple[str, ...],
    kit_root: Path = KIT_ROOT,
    timeout: float = TIMEOUT_S,
) -> ChapterRun:
    """``pytest exercises/chN`` as ``run`` says (only ``exercises``' tests when given; the grading
    profile unless it says another), in a subprocess that writes its gradebook."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dtlab-part-") as tmp:
        report, log = Path(tmp) / "report.json", Path(tmp) / "pytest.log"
        session = replace(
            run,
            chapters=(chapter,),
            exercises=exercises,
            profile=_profile(run),
            report=report,
            extra=("-q",),
        )
        argv = [sys.executable, "-m", "pytest", *session.pytest_args(Path("."))]
        try:
            rc = _run(argv, kit_root, log, timeout)
        except subprocess.TimeoutExpired:
            return ChapterRun(chapter, None, too_long(timeout, run.lang), timeout)
        book = _read(report)
        seconds = time.monotonic() - started
        if rc in (0, 1) and book is not None:  # 1: some tests failed, which is a grade
            return ChapterRun(chapter, book, "", seconds)
        output = log.read_text(encoding="utf-8", errors="replace")
        return ChapterRun(chapter, None, _reason(rc, output, book is None, run.lang), seconds)


def graded_once(
    folder: Path, run: GradingRun, chapter: str, kit_root: Path = KIT_ROOT, log=sys.stderr
) -> ChapterRun:
    """The chapter's run kept in ``folder`` for this code, kit and run; graded (and kept) when
    there is none. A run whose grading broke is kept too: the chapter's other parts fail at once
    with the same reason instead of each grading again."""
    path = kept_path(folder, run, chapter, kit_root)
    try:
        return ChapterRun(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        pass
    said = t("run:grading", run.lang, target=chapter, impl=run.impl.label, profile=_profile(run))
    print(said, file=log, flush=True)
    graded = grade(run, chapter, (), kit_root)
    write_atomic(path, json.dumps(asdict(graded)))
    return graded


def main(
    target: str, part: str, *, run: GradingRun, gradebooks: Path | None = None, kit_root: Path = KIT_ROOT
) -> int:
    """Grade ``part`` of the exercise ``target`` as ``run`` (the command's) says; 0 when it earned
    all its points."""
    lang = run.lang
    try:
        chapter, exercise, part = resolve_part(target, part)
    except UnknownTarget as exc:
        print(f"dtlab part: {exception_text(exc, lang)}", file=sys.stderr)
        return 2
    if gradebooks is not None:
        graded = graded_once(gradebooks, run, chapter, kit_root)
    else:
        said = t("run:grading", lang, target=exercise, impl=run.impl.label, profile=_profile(run))
        print(said, file=sys.stderr)
        graded = grade(run, chapter, (exercise,), kit_root)
    label = f"{exercise} [{part_name(part, lang)}]"
    if graded.book is None:
        print(f"{label}: {t('grading error', lang)}: {graded.error}")
        return 1
    book = Gradebook.from_dict(graded.book)
    rows = {row.exercise: row for row in book.rows()}
    row = rows.get(exercise)
    if row is None:  # no test of the exercise ran (its graders are missing)
        print(f"○ {label}: {t(NOT_RUN, lang)}")
        return 1
    result = next(p for p in row.parts if p.part == part)  # a row has every part, graded or not
    blocks = part_blocks(replace(row, parts=[result]), lang, book.named.get(exercise))  # as dtlab check
    if blocks:
        print("\n".join(blocks).strip("\n") + "\n")
    print(f"{label}: {result.points}/{result.max_points} {t(result.status, lang)}")
    return 0 if result.status == PASSED else 1
