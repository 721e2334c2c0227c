"""Grading a class, as a list of steps: each does one job, reads what the steps before it left in
the :class:`ClassState` and leaves its own result there.

A command builds the :class:`ClassRun` (what every step shares: the chapter, the submissions, the
class's :class:`~graders.grading.result.Settings`, where the files go) and the list of steps its
options ask for, then :func:`run_class` runs them in order. ``dtlab grade`` and ``dtlab demo``
run :func:`grading_steps`; ``dtlab nbgrader grade`` adds :class:`RecordInGradebook`; ``dtlab
similarity`` grades nothing: intake, then :class:`FlagSimilar`. A step whose job cannot be done
for a cause of the teacher's (a folder, the roster, the sandbox, Ctrl-C) raises :class:`Stopped`
with what to say and the exit status; every step can be run on its own, on a state made by hand.
(Gradescope, the notebook cells and GitHub Classroom grade one submission at a time, with the
same sandboxed runner, not a class.)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from graders import config
from graders.grading.intake import Staged
from graders.grading.reports.similarity import DEFAULT_THRESHOLD
from graders.grading.result import Settings, StudentResult
from graders.words.chapter_names import unknown_chapters
from graders.words.text import exception_text, in_lang
from graders.words.vocabulary import t

if TYPE_CHECKING:
    from graders.grading.batch import BatchOutcome


class Stopped(Exception):
    """A step could not do its job for a cause of the teacher's: ``said`` (the whole message, for
    stderr) and the command's exit status."""

    def __init__(self, said: str, status: int = 2) -> None:
        super().__init__(said)
        self.said = said
        self.status = status


@dataclass(frozen=True)
class ClassRun:
    """What the steps of one class's grading share. ``settings`` is None where nothing is graded
    (``dtlab similarity``); ``command`` is how a refusal names the command."""

    chapter: str
    submissions: Path
    out: Path
    settings: Settings | None = None
    assignment: str | None = None  # nbgrader's assignment, and the gradebooks' name (default: chapter)
    duedate: str = ""  # ISO 8601 with its time zone, as the teacher wrote it
    mtimes: bool = False  # folders and zips: the files' modification times are the submission times
    at_head: bool = False  # repositories: graded at their heads, whatever the due date
    roster: Path | None = None
    jobs: int = 2
    executor: str = "local"
    scheduler: str | None = None  # Dask's, with executor "dask"
    force: bool = False  # grade again students whose stored result is still valid
    command: str = "dtlab grade"
    #: the language the teacher reads where nothing is graded (``dtlab similarity --lang``)
    ungraded_lang: str | None = None

    @property
    def lang(self) -> str:
        """The language the teacher reads: the run's feedback language (``ungraded_lang`` where
        nothing is graded, else ``DTLAB_LANG``'s)."""
        if self.settings is not None:
            return self.settings.run.lang
        return self.ungraded_lang or config.lang()

    def __post_init__(self) -> None:
        unknown = unknown_chapters([self.chapter])
        if unknown:
            raise ValueError(unknown)
        if self.settings is not None and self.settings.chapter != self.chapter:
            raise ValueError(f"the class's grading run grades {self.settings.chapter}, not {self.chapter}")


@dataclass(frozen=True)
class Exports:
    """``--export``: the LMS gradebooks to write (``moodle``, ``canvas``), and how to fill them."""

    kinds: tuple[str, ...] = ()
    moodle_id: str = "email"  # the roster's column that names a student to Moodle
    canvas_assignment_id: int | None = None


@dataclass(frozen=True)
class ClassState:
    """What the steps have made so far."""

    staged: tuple[Staged, ...] = ()  # the submissions, in student order
    skipped: tuple[str, ...] = ()  # what looked like a submission and is not taken, and why
    duedate: str = ""  # the due date, normalised (ISO 8601)
    roster: dict = field(default_factory=dict)  # student id -> outputs.Student
    outcome: BatchOutcome | None = None  # once graded
    misconceptions: dict | None = None  # the class's table of them (None: no battery came back)
    similar: tuple = ()  # the pairs flagged for review
    report: Path | None = None  # the class report
    recorded: tuple[str, ...] = ()  # the submissions recorded in nbgrader's gradebook

    @property
    def results(self) -> list[StudentResult]:
        return self.outcome.results


class Step(Protocol):
    def __call__(self, run: ClassRun, state: ClassState) -> ClassState: ...


def run_class(run: ClassRun, steps: list[Step], state: ClassState | None = None) -> ClassState:
    """Run ``steps`` in order over ``run``, each on the state the one before left."""
    state = state if state is not None else ClassState()
    for step in steps:
        state = step(run, state)
    return state


def grading_steps(*, exports: Exports = Exports(), similarity: float | None = None) -> list[Step]:
    """``dtlab grade``'s steps: the class graded and every teacher's file written; the LMS
    gradebooks of ``exports`` and, with a ``similarity`` threshold, the similar pairs too."""
    steps: list[Step] = [RequireSimilarity()] if similarity is not None else []
    steps += [Intake()]
    steps += [CheckExports(exports)] if exports.kinds else []
    steps += [SaySkipped("class:not graded"), Grade(), NameMisconceptions(), WriteOutputs()]
    steps += [ExportLMS(exports)] if exports.kinds else []
    steps += [FlagSimilar(similarity)] if similarity is not None else []
    return [*steps, ClassReport()]


# -- the steps -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RequireSimilarity:
    """Before anything else: the similarity library is installed."""

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading.reports.similarity import missing_library

        missing = missing_library()
        if missing:
            raise Stopped(f"dtlab: {missing}")
        return state


@dataclass(frozen=True)
class Intake:
    """The submissions (staged), the due date and the roster: everything the teacher hands in,
    read and checked before anything is graded. A student's git repository is staged at its last
    commit by the due date (its head with ``at_head``, or when none is)."""

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading import intake, timestamps
        from graders.grading.reports import outputs

        try:
            due = timestamps.parse(run.duedate) if run.duedate else None
            duedate = due.isoformat() if due else ""
            revisions = intake.Revisions(due, run.at_head)
            found = intake.discover(
                run.submissions, run.chapter, run.assignment, mtimes=run.mtimes, revisions=revisions
            )
            roster = outputs.read_roster(run.roster) if run.roster else {}
        except (FileNotFoundError, ValueError) as exc:
            raise Stopped(f"{run.command}: {exception_text(exc, run.lang)}") from None
        return replace(
            state, staged=tuple(found.staged), skipped=tuple(found.skipped), duedate=duedate, roster=roster
        )


@dataclass(frozen=True)
class CheckExports:
    """Before grading: the LMS gradebooks asked for can be written from the roster."""

    exports: Exports

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading.lms import gradebooks

        kinds = list(self.exports.kinds)
        problem = gradebooks.roster_problem(kinds, state.roster, self.exports.moodle_id)
        try:
            if problem:
                raise ValueError(problem)
            if "canvas" in kinds:
                gradebooks.canvas_header(run.assignment or run.chapter, self.exports.canvas_assignment_id)
        except ValueError as exc:
            raise Stopped(f"{run.command}: {exception_text(exc, run.lang)}") from None
        return state


@dataclass(frozen=True)
class SaySkipped:
    """Name, on stderr, what looked like a submission and is not taken (``not graded: …``);
    ``verb`` is the word that says so (``"class:not graded"``)."""

    verb: str

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        for skipped in state.skipped:
            print(f"{t(self.verb, run.lang)}: {in_lang(skipped, run.lang)}", file=sys.stderr)
        return state


@dataclass(frozen=True)
class Grade:
    """Grade every staged submission in the sandbox (resumably: see :mod:`graders.grading.batch`)."""

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading import batch, sandbox

        settings, out, count = run.settings, run.out, len(state.staged)
        said = {"count": count, "chapter": run.chapter, "profile": settings.profile, "out": out}
        print(t("class:grading", run.lang, **said), flush=True)
        try:
            outcome = batch.grade_batch(
                list(state.staged),
                settings,
                out,
                jobs=run.jobs,
                executor=run.executor,
                scheduler=run.scheduler,
                force=run.force,
                progress=batch.Progress(count, lang=run.lang),
            )
        except sandbox.UnsafeIsolation as exc:
            raise Stopped(exception_text(exc, run.lang)) from None
        except KeyboardInterrupt:
            raise Stopped(
                "\n" + t("class:interrupted", run.lang, kept=out / ".dtlab" / "results"),
                130,
            ) from None
        return replace(state, outcome=outcome)


@dataclass(frozen=True)
class NameMisconceptions:
    """Which known mutant each failing exercise behaves like (``results[i].misconceptions``), and
    the class's table of them; nothing when no diagnostic battery came back."""

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.misconceptions import teacher_view as misconceptions

        if not any(r.book.diagnostics for r in state.results):
            return replace(state, misconceptions=None)
        print(t("class:naming", run.lang))
        named = misconceptions.name_all_in_a_pool(state.results, run.settings.run, misconceptions.CACHE_DIR)
        return replace(state, misconceptions=misconceptions.class_table(named, run.chapter, run.lang))


@dataclass(frozen=True)
class WriteOutputs:
    """The gradebooks, the feedback and Gradescope's results, and the class's table on stdout."""

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading import batch
        from graders.grading.reports import outputs

        out = run.out
        outputs.write_all(
            state.results,
            run.chapter,
            out,
            assignment=run.assignment,
            duedate=state.duedate,
            roster=state.roster,
            lang=run.settings.lang,
        )
        print()
        print(batch.render_gradebook(state.results, run.chapter, run.lang))
        print()
        print(batch.summary(state.outcome, run.chapter, run.lang))
        print(
            "\n"
            + t(
                "class:written",
                run.lang,
                csv=out / "grades.csv",
                wide=out / "grades_wide.csv",
                feedback=out / "feedback",
                gradescope=out / "gradescope",
            )
        )
        return state


@dataclass(frozen=True)
class ExportLMS:
    """The Moodle and Canvas gradebooks (Moodle's feedback in the students' language); every
    student left out of one is named on stderr, and so are Moodle's e-mail identifiers with
    capitals (the file is written all the same)."""

    exports: Exports

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading.lms import gradebooks

        written = gradebooks.write(
            list(self.exports.kinds),
            state.results,
            run.chapter,
            run.out,
            state.roster,
            assignment=run.assignment or run.chapter,
            moodle_id=self.exports.moodle_id,
            canvas_assignment_id=self.exports.canvas_assignment_id,
            lang=run.settings.lang,
        )
        for export in written:
            for why in export.skipped:
                print(
                    t("class:left out of", run.lang, file=export.path.name, why=in_lang(why, run.lang)),
                    file=sys.stderr,
                )
            warning = gradebooks.email_case_warning(export, run.lang)
            if warning:
                print(warning, file=sys.stderr)
            left_out = t("class:left out", run.lang, count=len(export.skipped)) if export.skipped else ""
            kind, count = export.kind.capitalize(), len(export.written)
            print(t("class:exported", run.lang, path=export.path, kind=kind, count=count, left_out=left_out))
        return state


@dataclass(frozen=True)
class FlagSimilar:
    """The pairs of submissions at or above ``threshold`` flagged for review (never penalised)."""

    threshold: float = DEFAULT_THRESHOLD

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading.reports import similarity

        files = {s.student_id: s.files for s in state.staged}
        found = similarity.compare(files, run.chapter, run.out, self.threshold, run.lang)
        print(
            "\n"
            + t(
                "class:similarity",
                run.lang,
                pairs=len(found.pairs),
                compared=found.compared,
                threshold=f"{self.threshold:.0%}",
                csv=found.csv_path,
                html=found.html_path,
            )
        )
        for pair in found.pairs[:10]:
            print(f"  {pair.first} ↔ {pair.second}: {pair.first_score:.0%} / {pair.second_score:.0%}")
        return replace(state, similar=tuple(found.pairs))


@dataclass(frozen=True)
class ClassReport:
    """The class at a glance: score histograms, pass rates, failures by kind, the flagged pairs
    and the misconceptions."""

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading.reports import class_report

        report = class_report.write_report(
            state.results,
            run.chapter,
            run.out,
            similar=list(state.similar),
            misconceptions=state.misconceptions,
            lang=run.lang,
        )
        print(t("class:report", run.lang, report=report))
        return replace(state, report=report)


@dataclass(frozen=True)
class RecordInGradebook:
    """Each submission's scores and comments into nbgrader's gradebook ``db_url``."""

    db_url: str
    course_id: str = "dtlab"

    def __call__(self, run: ClassRun, state: ClassState) -> ClassState:
        from graders.grading.lms import nbgrader_gradebook

        assignment = run.assignment or run.chapter
        try:
            recorded = nbgrader_gradebook.record(
                state.results, run.chapter, assignment, self.db_url, self.course_id, run.settings.lang
            )
        except nbgrader_gradebook.GradebookMismatch as exc:
            raise Stopped(f"dtlab nbgrader grade: {exception_text(exc, run.lang)}") from None
        print(t("class:nbgrader", run.lang, db=self.db_url, count=len(recorded), assignment=assignment))
        return replace(state, recorded=tuple(recorded))
