"""The ``dtlab`` command (also ``python -m graders``)."""

from __future__ import annotations

import argparse
import sys

from graders.i18n import LANGS
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


def _watch(args: argparse.Namespace) -> int:
    from graders import catalog
    from graders import config as dtlab_config
    from graders.impl import ImplNotFound

    chapter = catalog.CHAPTERS.get(args.chapter)
    if chapter is None:
        print(f"unknown chapter {args.chapter}; choose from {', '.join(catalog.CHAPTERS)}", file=sys.stderr)
        return 2
    exercise = args.exercise and (args.exercise if "." in args.exercise else f"{chapter.id}.{args.exercise}")
    if exercise and exercise not in {e.id for e in chapter.exercises}:
        names = ", ".join(e.id.split(".", 1)[1] for e in chapter.exercises)
        print(f"{chapter.id} has no exercise {args.exercise}; choose from {names}", file=sys.stderr)
        return 2
    from graders.grading.watch import Watch

    try:
        watch = Watch(
            chapter.id,
            exercise,
            impl=args.impl or dtlab_config.impl(),
            lang=args.lang or dtlab_config.lang(),
            profile=args.profile,
        )
    except ImplNotFound as exc:
        print(f"dtlab watch: {exc}", file=sys.stderr)
        return 2
    return watch.run()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dtlab", description="dtlab: auto-graded distributed-training exercises"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    stubs = sub.add_parser("stubs", help="generate exercises/ from solutions/")
    stubs.add_argument("--check", action="store_true", help="only report stubs that are out of date")
    stubs.set_defaults(func=_stubs)

    watch = sub.add_parser("watch", help="re-grade a chapter's exercises every time you save one")
    watch.add_argument("chapter", help="the chapter, e.g. ch2")
    watch.add_argument("exercise", nargs="?", help="only this exercise, e.g. ring_all_reduce")
    watch.add_argument("--impl", default=None, help="what to grade (default: $DTLAB_IMPL, else exercises)")
    watch.add_argument("--lang", default=None, choices=LANGS, help="language (default: $DTLAB_LANG, else en)")
    watch.add_argument(
        "--profile", default=None, help="hypothesis profile (default: $DTLAB_PROFILE, else student)"
    )
    watch.set_defaults(func=_watch)

    from graders.grading import cli as grading_cli

    grading_cli.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)
