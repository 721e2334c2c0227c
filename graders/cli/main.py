"""The ``dtlab`` command (also ``python -m graders``)."""

from __future__ import annotations

import argparse
import sys

from graders.impl import KIT_ROOT
from graders.words.chapter_names import unknown_chapters


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


def _battery(args: argparse.Namespace) -> int:
    """Build (or, with ``--check``, check) the chapters' shipped misconceptions."""
    from graders import catalog
    from graders.misconceptions import shipped

    chapters = args.chapters or list(catalog.CHAPTERS)
    unknown = unknown_chapters(chapters)
    if unknown:
        print(unknown, file=sys.stderr)
        return 2
    stale = shipped.stale(chapters)
    if args.check:
        if stale:
            print(f"stale misconception batteries: {', '.join(stale)}: run `dtlab battery {' '.join(stale)}`")
            return 1
        print("misconception batteries are up to date")
        return 0
    from graders.plugin.harness import Harness
    from graders.world.pool import WorldPool

    pool = WorldPool()
    try:
        for chapter in chapters if args.chapters else stale:
            print(f"{chapter}: the reference's and the mutants' batteries …", flush=True)
            path = shipped.write(chapter, Harness(pool))
            print(f"wrote {path.relative_to(KIT_ROOT)} ({path.stat().st_size // 1024} KiB)")
    finally:
        pool.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dtlab", description="dtlab: auto-graded distributed-training exercises"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    stubs = sub.add_parser("stubs", help="generate exercises/ from solutions/")
    stubs.add_argument("--check", action="store_true", help="only report stubs that are out of date")
    stubs.set_defaults(func=_stubs)

    battery = sub.add_parser(
        "battery", help="build the misconceptions a student's run can name (from solutions/ and the mutants)"
    )
    battery.add_argument("chapters", nargs="*", help="these chapters (default: every stale one)")
    battery.add_argument("--check", action="store_true", help="only report chapters whose file is stale")
    battery.set_defaults(func=_battery)

    from graders.cli import hint, init_command, student, teacher

    hint.add_command(sub)
    student.add_commands(sub)
    init_command.add_commands(sub)
    teacher.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from graders.cli.help_words import help_lang, translate

    parser = translate(build_parser(), help_lang(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    return args.func(args)
