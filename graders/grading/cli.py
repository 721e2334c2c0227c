"""``dtlab grade`` (a class's submissions), ``dtlab demo`` (the bundled samples of chapter 2)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import catalog
from graders.impl import KIT_ROOT


def _grade(args: argparse.Namespace) -> int:
    from graders.grading import batch, intake, outputs, sandbox
    from graders.grading.runner import Settings

    if args.chapter not in catalog.CHAPTERS:
        print(f"unknown chapter {args.chapter}; choose from {', '.join(catalog.CHAPTERS)}", file=sys.stderr)
        return 2
    try:
        staged = intake.discover(Path(args.submissions), args.chapter, args.assignment)
        roster = outputs.read_roster(Path(args.roster)) if args.roster else {}
    except (FileNotFoundError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 2
    limits = sandbox.Limits(
        wall_s=args.timeout,
        memory_mb=args.memory_mb,
        process_memory_mb=min(args.memory_mb, 3072),
        pids=args.pids,
    )
    settings = Settings(args.chapter, args.profile, args.deadline, limits)
    out = Path(args.out)
    print(
        f"grading {len(staged)} submission(s) of {args.chapter} ({args.profile} profile) → {out}", flush=True
    )
    try:
        outcome = batch.grade_batch(
            staged,
            settings,
            out,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
            force=args.force,
            progress=batch.Progress(len(staged)),
        )
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: finished students are kept in {out / '.dtlab' / 'results'}; "
            "run the same command again to grade the rest",
            file=sys.stderr,
        )
        return 130
    outputs.write_all(
        outcome.results,
        args.chapter,
        out,
        assignment=args.assignment,
        duedate=args.duedate,
        roster=roster,
        lang=args.lang,
    )
    print()
    print(batch.render_gradebook(outcome.results, args.chapter))
    print()
    print(batch.summary(outcome, args.chapter))
    print(
        f"\n→ {out / 'grades.csv'} (nbgrader columns), {out / 'grades_wide.csv'}, "
        f"{out / 'feedback'}/ (.md, .html), {out / 'gradescope'}/<student>/results.json"
    )
    return 0


def _demo(args: argparse.Namespace) -> int:
    args.submissions = str(KIT_ROOT / "fixtures" / "submissions" / "ch2")
    args.chapter = "ch2"
    return _grade(args)


def _common(parser: argparse.ArgumentParser, out_default: str) -> None:
    parser.add_argument("--out", default=out_default, help="folder for the gradebooks, feedback and results")
    parser.add_argument("--jobs", type=int, default=2, help="submissions graded at once (default 2)")
    parser.add_argument("--profile", default="grading", choices=("grading", "student", "ci"))
    parser.add_argument("--timeout", type=float, default=600.0, help="wall-clock limit per submission (s)")
    parser.add_argument("--deadline", type=float, default=None, help="deadline of one task in the world (s)")
    parser.add_argument("--memory-mb", type=int, default=6144, help="memory ceiling per submission (MB)")
    parser.add_argument("--pids", type=int, default=256, help="process ceiling per submission")
    parser.add_argument("--roster", default=None, help="CSV with id, first_name, last_name, email")
    parser.add_argument("--assignment", default=None, help="assignment name (default: the chapter)")
    parser.add_argument("--duedate", default="", help="due date for grades.csv (ISO 8601)")
    parser.add_argument("--executor", default="local", choices=("local", "dask"))
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address (with --executor dask)")
    parser.add_argument("--force", action="store_true", help="regrade students that already have a result")
    parser.add_argument("--lang", default="en", choices=("en", "vi"))


def add_commands(sub) -> None:
    grade = sub.add_parser(
        "grade",
        help="grade a class's submissions (folders, zips, or nbgrader's submitted/ layout)",
        description="Grade every submission in SUBMISSIONS: a folder per student, a zip per student, "
        "or nbgrader's submitted/{student}/{assignment}/ layout. Resumable: finished students are "
        "kept in OUT/.dtlab/results and not graded again.",
    )
    grade.add_argument("submissions", help="folder of submissions")
    grade.add_argument("--chapter", required=True)
    _common(grade, "out/grades")
    grade.set_defaults(func=_grade)

    demo = sub.add_parser("demo", help="grade the bundled sample submissions of chapter 2")
    _common(demo, "out/demo")
    demo.set_defaults(func=_demo)
