"""The teacher's commands: ``dtlab grade`` (a class's submissions), ``dtlab similarity``, ``dtlab
release`` (:mod:`graders.cli.release_command`), ``dtlab gradescope build``, ``dtlab nbgrader
init`` / ``grade``, ``dtlab demo`` (the bundled samples of chapter 2).

Grading a class is :mod:`graders.grading.class_pipeline`'s: a command here parses its options,
builds the class's run and the list of steps they ask for, runs it and says why it stopped."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import catalog, config
from graders.cli import lms_export, release_command
from graders.impl import KIT_ROOT
from graders.plugin.run_spec import add_options
from graders.words.chapter_names import unknown_chapters
from graders.words.text import exception_text, in_lang
from graders.words.vocabulary import LANGS, t


def _grade(args: argparse.Namespace) -> int:
    return _grade_class(args, Path(args.submissions), args.chapter, Path(args.out))


def _demo(args: argparse.Namespace) -> int:
    return _grade_class(args, KIT_ROOT / "fixtures" / "submissions" / "ch2", "ch2", Path(args.out))


def _nbgrader_grade(args: argparse.Namespace) -> int:
    """``dtlab grade`` of the course's ``submitted/``, then the scores into nbgrader's gradebook."""
    from graders.grading.class_pipeline import RecordInGradebook
    from graders.grading.lms import nbgrader_gradebook

    course = Path(args.course_dir)
    out = Path(args.out) if args.out else course / "dtlab" / args.assignment
    db_url = args.db or nbgrader_gradebook.default_db_url(course)
    then = [RecordInGradebook(db_url, args.course_id)]
    return _grade_class(args, course, args.chapter or args.assignment, out, then)


def _grade_class(args: argparse.Namespace, submissions: Path, chapter: str, out: Path, then=()) -> int:
    """Grade the class in ``submissions`` with the steps the options ask for, then ``then``'s."""
    from graders.grading import class_pipeline as pipeline

    lang = args.lang or config.lang()
    unknown = unknown_chapters([chapter])
    if unknown:
        print(in_lang(unknown, lang), file=sys.stderr)
        return 2
    try:
        run = pipeline.ClassRun(
            chapter,
            submissions,
            out,
            _settings(args, chapter),
            assignment=args.assignment,
            duedate=args.duedate,
            mtimes=args.timestamps_from_mtime,
            at_head=args.at_head,
            roster=Path(args.roster) if args.roster else None,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
            force=args.force,
        )
    except ValueError as exc:  # the grading run cannot be (graders.plugin.run_spec.InvalidRun)
        print(f"dtlab grade: {exception_text(exc, lang)}", file=sys.stderr)
        return 2
    similarity = args.threshold if args.similarity else None
    steps = pipeline.grading_steps(exports=lms_export.exports(args), similarity=similarity)
    return _run(run, [*steps, *then])


def _run(run, steps) -> int:
    """Run the class's steps; a step's refusal is printed, with its exit status."""
    from graders.grading.class_pipeline import Stopped, run_class

    try:
        run_class(run, steps)
    except Stopped as stop:
        print(stop.said, file=sys.stderr)
        return stop.status
    return 0


def _settings(args: argparse.Namespace, chapter: str | None = None):
    """What grading one submission takes, from the command's options: the class's grading run
    (``chapter``, else ``--chapter``) and the sandbox's limits."""
    from graders.grading import sandbox
    from graders.grading.result import Settings

    limits = sandbox.Limits(
        wall_s=args.timeout,
        memory_mb=args.memory_mb,
        process_memory_mb=max(512, min(3072, args.memory_mb // 2)),
        pids=args.pids,
        disk_mb=args.disk_mb,
    )
    return Settings.of(
        chapter or args.chapter,
        args.profile,
        args.deadline,
        limits,
        lang=args.lang or config.lang(),
        diagnose=not args.no_misconceptions,
    )


def _similarity(args: argparse.Namespace) -> int:
    """``dtlab similarity SUBMISSIONS --chapter chN``: the similar pairs alone, nothing graded."""
    from graders.grading import class_pipeline as pipeline

    unknown = unknown_chapters([args.chapter])
    if unknown:
        print(in_lang(unknown, config.lang()), file=sys.stderr)
        return 2
    run = pipeline.ClassRun(
        args.chapter,
        Path(args.submissions),
        Path(args.out),
        assignment=args.assignment,
        command="dtlab similarity",
        ungraded_lang=args.lang,
    )
    steps = [pipeline.RequireSimilarity(), pipeline.Intake(), pipeline.SaySkipped("class:not compared")]
    return _run(run, [*steps, pipeline.FlagSimilar(args.threshold)])


def _threshold(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a share between 0 and 1, not {text}")
    return value


def _similarity_options(parser: argparse.ArgumentParser) -> None:
    from graders.grading.reports.similarity import DEFAULT_THRESHOLD

    parser.add_argument(
        "--threshold",
        type=_threshold,
        default=DEFAULT_THRESHOLD,
        help=f"flag a pair when either student's own code is this share of the other's "
        f"(default {DEFAULT_THRESHOLD})",
    )


def _gradescope_build(args: argparse.Namespace) -> int:
    from graders.grading.lms import gradescope

    unknown = unknown_chapters([args.chapter])
    if unknown:
        print(in_lang(unknown, config.lang()), file=sys.stderr)
        return 2
    lang = config.lang()
    names = gradescope.build(Path(args.out), args.chapter, args.profile, lang=lang if lang in LANGS else "en")
    hidden = sum(1 for n in names if n.startswith("kit/hidden/"))
    print(t("gradescope:built", lang, out=args.out, files=len(names), hidden=hidden))
    print(t("gradescope:upload", lang))
    return 0


def _nbgrader_init(args: argparse.Namespace) -> int:
    from graders.grading.lms import nbgrader_course as nbgrader

    chapters = args.chapters or list(catalog.CHAPTERS)
    unknown = unknown_chapters(chapters)
    if unknown:
        print(in_lang(unknown, config.lang()), file=sys.stderr)
        return 2
    lang = config.lang()
    for path in nbgrader.init(Path(args.course_dir), chapters):
        print(t("nbgrader:wrote", lang, path=path))
    print(t("nbgrader:next", lang, course=args.course_dir, chapter=chapters[0]))
    return 0


def _common(parser: argparse.ArgumentParser, out_default: str | None) -> None:
    parser.add_argument("--out", default=out_default, help="folder for the gradebooks, feedback and results")
    parser.add_argument("--jobs", type=int, default=2, help="submissions graded at once (default 2)")
    add_options(parser, "profile", profile="grading")
    parser.add_argument("--timeout", type=float, default=600.0, help="wall-clock limit per submission (s)")
    parser.add_argument("--deadline", type=float, default=None, help="deadline of one task in the world (s)")
    parser.add_argument("--memory-mb", type=int, default=6144, help="memory ceiling per submission (MB)")
    parser.add_argument(
        "--pids", type=int, default=512, help="ceiling on processes and threads per submission"
    )
    parser.add_argument(
        "--disk-mb", type=int, default=512, help="size of each submission's work area, /tmp included (MB)"
    )
    parser.add_argument(
        "--roster",
        default=None,
        help="CSV with id, first_name, last_name, email; for --export also username, idnumber "
        "(Moodle), display_name, canvas_id, sis_user_id, sis_login_id, section (Canvas)",
    )
    parser.add_argument("--assignment", default=None, help="assignment name (default: the chapter)")
    parser.add_argument(
        "--due",
        "--duedate",
        dest="duedate",
        metavar="DATE",
        default="",
        help="due date, ISO 8601 with its time zone (2026-03-01T23:59+07:00 or ...Z); a time without "
        "a zone is refused. A student's git repository is graded at its last commit at or before it "
        "(committer date); one with none is graded at its head and marked late",
    )
    parser.add_argument(
        "--at-head",
        action="store_true",
        help="git repositories: grade each at its head (the late mark still compares it with --due)",
    )
    parser.add_argument(
        "--timestamps-from-mtime",
        action="store_true",
        help="folders and zips: take the files' modification times as submission times (for `late`)",
    )
    lms_export.add_options(parser)
    parser.add_argument("--executor", default="local", choices=("local", "dask"))
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address (with --executor dask)")
    parser.add_argument("--force", action="store_true", help="regrade students that already have a result")
    add_options(parser, "lang")
    parser.add_argument(
        "--no-misconceptions",
        action="store_true",
        help="skip the diagnostic battery (naming which known mutant a failing exercise behaves like)",
    )
    parser.add_argument(
        "--similarity",
        action="store_true",
        help="also flag similar pairs of submissions for review (similarity.csv, similarity.html)",
    )
    _similarity_options(parser)


def add_commands(sub) -> None:
    grade = sub.add_parser(
        "grade",
        help="grade a class's submissions (folders, zips, or nbgrader's submitted/ layout)",
        description="Grade every submission in SUBMISSIONS: a folder per student, a zip per student, "
        "or nbgrader's submitted/{student}/{assignment}/ layout. A folder that is a git repository "
        "(gh classroom clone student-repos) is graded at a commit, never from its working tree. "
        "Resumable: finished students are kept in OUT/.dtlab/results and not graded again.",
    )
    grade.add_argument("submissions", help="folder of submissions")
    grade.add_argument("--chapter", required=True)
    _common(grade, "out/grades")
    grade.set_defaults(func=_grade)

    similar = sub.add_parser(
        "similarity",
        help="flag similar pairs of submissions for review (never penalised); grades nothing",
        description="Compare the submissions of one chapter pairwise (copydetect's winnowing, the "
        "chapter's stubs removed as boilerplate) and write OUT/similarity.csv and OUT/similarity.html.",
    )
    similar.add_argument("submissions", help="folder of submissions (as for dtlab grade)")
    similar.add_argument("--chapter", required=True)
    similar.add_argument("--assignment", default=None, help="nbgrader layout: the assignment's name")
    similar.add_argument("--out", default="out/similarity")
    add_options(similar, "lang")
    _similarity_options(similar)
    similar.set_defaults(func=_similarity)

    release_command.add_command(sub)

    gradescope = sub.add_parser("gradescope", help="Gradescope autograder")
    gradescope_sub = gradescope.add_subparsers(dest="gradescope_command", required=True)
    gs_build = gradescope_sub.add_parser("build", help="write the autograder zip (setup.sh, run_autograder)")
    gs_build.add_argument("--chapter", required=True)
    gs_build.add_argument("--out", default="out/autograder.zip")
    add_options(gs_build, "profile", profile="grading")
    gs_build.set_defaults(func=_gradescope_build)

    nb = sub.add_parser("nbgrader", help="nbgrader course for the kit's chapters")
    nb_sub = nb.add_subparsers(dest="nbgrader_command", required=True)
    nb_init = nb_sub.add_parser("init", help="lay out an nbgrader course: one notebook per chapter")
    nb_init.add_argument("course_dir")
    nb_init.add_argument("--chapters", nargs="*", default=None, help="default: every chapter")
    nb_init.set_defaults(func=_nbgrader_init)
    nb_grade = nb_sub.add_parser(
        "grade",
        help="grade the collected .py files in the sandbox and write the scores into nbgrader's gradebook",
        description="Run after `nbgrader collect` and `nbgrader autograde` (which runs no notebook cell): "
        "grades COURSE_DIR/submitted/*/ASSIGNMENT like `dtlab grade` and writes each exercise's score "
        "and feedback into the gradebook through nbgrader's API. No notebook edit can change a score.",
    )
    nb_grade.add_argument("course_dir")
    nb_grade.add_argument("assignment")
    nb_grade.add_argument("--chapter", default=None, help="the kit's chapter (default: the assignment)")
    nb_grade.add_argument(
        "--db", default=None, help="gradebook URL (default: sqlite:///COURSE_DIR/gradebook.db)"
    )
    nb_grade.add_argument("--course-id", default="dtlab", help="nbgrader's course id (default: dtlab)")
    _common(nb_grade, None)
    nb_grade.set_defaults(func=_nbgrader_grade)

    demo = sub.add_parser("demo", help="grade the bundled sample submissions of chapter 2")
    _common(demo, "out/demo")
    demo.set_defaults(func=_demo)
