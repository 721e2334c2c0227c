"""The ``dtlab`` command (also ``python -m graders``)."""

from __future__ import annotations

import argparse
import sys

from graders.impl import KIT_ROOT


def _stubs(args: argparse.Namespace) -> int:
    from graders.authoring.stubs import sync

    drifts = sync(KIT_ROOT, check=args.check)
    for drift in drifts:
        print(drift.diff if args.check else f"wrote {drift.path.relative_to(KIT_ROOT)}")
    if args.check and drifts:
        print(f"{len(drifts)} stub file(s) are out of date: run `dtlab stubs`", file=sys.stderr)
        return 1
    if not drifts:
        print("stubs are up to date")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dtlab", description="dtlab: auto-graded distributed-training exercises"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    stubs = sub.add_parser("stubs", help="generate exercises/ from solutions/")
    stubs.add_argument("--check", action="store_true", help="only report stubs that are out of date")
    stubs.set_defaults(func=_stubs)

    from graders.cli import hint, student, teacher

    hint.add_command(sub)
    student.add_commands(sub)
    teacher.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)
