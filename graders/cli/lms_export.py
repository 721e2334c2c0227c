"""``--export moodle,canvas`` of ``dtlab grade`` (and of ``dtlab nbgrader grade`` and ``dtlab demo``):
the options, checked against the roster before anything is graded, and the files written after,
in the layouts of :mod:`graders.grading.lms.gradebooks`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _kinds(text: str) -> list[str]:
    from graders.grading.lms.gradebooks import KINDS

    kinds = [k.strip().lower() for k in text.split(",") if k.strip()]
    if not kinds or any(k not in KINDS for k in kinds):
        raise argparse.ArgumentTypeError(f"{text!r}: one or more of {', '.join(KINDS)}, comma-separated")
    return kinds


def _assignment_id(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) == 0:
        raise argparse.ArgumentTypeError(f"{text!r}: Canvas's assignment id, a positive number")
    return int(text)


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--export",
        action="append",
        type=_kinds,
        metavar="moodle,canvas",
        help="also write the gradebook CSV that Moodle's or Canvas's grade import takes "
        "(grades_moodle.csv, grades_canvas.csv); needs --roster; repeatable or comma-separated",
    )
    parser.add_argument(
        "--moodle-id",
        default="email",
        choices=("email", "username", "idnumber"),
        help="the roster's column that identifies a student in grades_moodle.csv (default: email)",
    )
    parser.add_argument(
        "--canvas-assignment-id",
        type=_assignment_id,
        default=None,
        metavar="N",
        help="the Canvas assignment to fill (its id in the assignment's URL); without it Canvas "
        "takes the assignment named --assignment, or creates it",
    )


def requested(args: argparse.Namespace, roster: dict) -> list[str]:
    """The systems ``--export`` asks for, once each; ValueError: why the files cannot be written."""
    from graders.grading.lms import gradebooks

    kinds = list(dict.fromkeys(kind for group in args.export or [] for kind in group))
    problem = gradebooks.roster_problem(kinds, roster, args.moodle_id)
    if problem:
        raise ValueError(problem)
    if "canvas" in kinds:
        gradebooks.canvas_header(args.assignment or args.chapter, args.canvas_assignment_id)
    return kinds


def write(args: argparse.Namespace, kinds: list[str], results, out: Path, roster: dict) -> None:
    """The files of ``kinds``; every student left out of one is named on stderr."""
    from graders.grading.lms import gradebooks

    exports = gradebooks.write(
        kinds,
        results,
        args.chapter,
        out,
        roster,
        assignment=args.assignment or args.chapter,
        moodle_id=args.moodle_id,
        canvas_assignment_id=args.canvas_assignment_id,
    )
    for export in exports:
        for why in export.skipped:
            print(f"{export.path.name}: left out {why}", file=sys.stderr)
        left_out = f", {len(export.skipped)} left out (see above)" if export.skipped else ""
        print(f"→ {export.path} ({export.kind.capitalize()}: {len(export.written)} student(s){left_out})")
