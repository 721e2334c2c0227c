"""``dtlab grade`` (a folder of submissions) and ``dtlab demo`` (the bundled samples)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from graders import catalog
from graders.impl import KIT_ROOT


def _grade(args: argparse.Namespace) -> int:
    from graders.grading import batch

    if args.chapter not in catalog.CHAPTERS:
        print(f"unknown chapter {args.chapter}; choose from {', '.join(catalog.CHAPTERS)}", file=sys.stderr)
        return 2
    try:
        submissions = batch.discover(Path(args.submissions))
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    out = Path(args.out)
    started = time.monotonic()
    total = len(submissions)
    done = []

    def progress(result):
        done.append(result)
        earned, possible = result.book.total
        print(
            f"[{len(done)}/{total}] {result.submission.student_id}: {earned}/{possible} "
            f"({result.seconds:.1f} s){' · ' + result.error.splitlines()[0] if result.error else ''}",
            flush=True,
        )

    results = batch.grade_all(
        submissions, args.chapter, args.profile, args.jobs, args.timeout, args.deadline, progress
    )
    batch.write_outputs(results, args.chapter, out, args.lang)
    print()
    print(batch.render_gradebook(results, args.chapter))
    print(
        f"\n{total} submission(s) graded in {time.monotonic() - started:.1f} s → {out / 'grades.csv'}, "
        f"{out / 'feedback'}/"
    )
    return 0


def _demo(args: argparse.Namespace) -> int:
    args.submissions = str(KIT_ROOT / "fixtures" / "submissions" / "ch2")
    args.chapter = "ch2"
    return _grade(args)


def _common(parser: argparse.ArgumentParser, out_default: str) -> None:
    parser.add_argument("--out", default=out_default, help="folder for grades.csv and feedback/")
    parser.add_argument("--jobs", type=int, default=2, help="submissions graded at once")
    parser.add_argument("--profile", default="grading", choices=("grading", "student", "ci"))
    parser.add_argument("--timeout", type=float, default=600.0, help="wall-clock limit per submission (s)")
    parser.add_argument("--deadline", type=float, default=None, help="deadline of one task in the world (s)")
    parser.add_argument("--lang", default="en", choices=("en", "vi"))


def add_commands(sub) -> None:
    grade = sub.add_parser("grade", help="grade a folder of submissions (one sub-folder per student)")
    grade.add_argument("submissions", help="folder with one sub-folder per student")
    grade.add_argument("--chapter", required=True)
    _common(grade, "out/grades")
    grade.set_defaults(func=_grade)

    demo = sub.add_parser("demo", help="grade the bundled sample submissions of chapter 2")
    _common(demo, "out/demo")
    demo.set_defaults(func=_demo)
