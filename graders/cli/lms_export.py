"""``--export moodle,canvas`` of ``dtlab grade`` (and of ``dtlab nbgrader grade`` and ``dtlab demo``):
the options, and what they ask for (:class:`graders.grading.class_pipeline.Exports`), which the
class pipeline checks against the roster before anything is graded and writes after, in the
layouts of :mod:`graders.grading.lms.gradebooks`."""

from __future__ import annotations

import argparse


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


def exports(args: argparse.Namespace):
    """The LMS gradebooks ``--export`` asks for, once each, and how to fill them (the class
    pipeline checks them against the roster before grading, and writes them after)."""
    from graders.grading.class_pipeline import Exports

    kinds = tuple(dict.fromkeys(kind for group in args.export or [] for kind in group))
    return Exports(kinds, args.moodle_id, args.canvas_assignment_id)
