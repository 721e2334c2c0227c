"""The student's commands in the ``dtlab`` command line: ``progress``, ``check``, ``part`` and ``watch``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import config
from graders.plugin.run_spec import GradingRun, add_options
from graders.student.fingerprint import PROFILE
from graders.student.state import DEFAULT_PATH
from graders.words.chapter_names import unknown_chapters
from graders.words.text import exception_text, in_lang
from graders.words.vocabulary import t


def _run(args: argparse.Namespace, profile: str | None = None) -> GradingRun | None:
    """The run the command grades: its options (``--impl``, ``--lang``, ``--backend``,
    ``--profile``) and, for what they leave unsaid, the environment's defaults; None, with why
    on stderr, when it cannot be."""
    try:
        run = GradingRun(
            impl=args.impl,
            lang=args.lang,
            backend=args.backend,
            profile=getattr(args, "profile", None) or profile,
        ).with_defaults()
    except ValueError as exc:  # InvalidRun, ImplNotFound
        print(f"dtlab {args.command}: {exception_text(exc, args.lang or config.lang())}", file=sys.stderr)
        return None
    if run.impl.label == "exercises" and not run.impl.root.is_dir():  # an installed kit, outside a workspace
        print(f"dtlab {args.command}: {t('student:no exercises', run.lang)}", file=sys.stderr)
        return None
    return run


def _progress(args: argparse.Namespace) -> int:
    from graders.student import progress

    run = _run(args, PROFILE)
    if run is None:
        return 2
    return progress.main(run, args.chapters, refresh=args.refresh, state_path=Path(args.state))


def _check(args: argparse.Namespace) -> int:
    from graders.student import check

    run = _run(args, PROFILE)
    if run is None:
        return 2
    nproc = args.nproc_per_node if args.launcher == "torchrun" else 0
    return check.main(
        args.chapter, args.exercise, run=run, explain=args.explain, state_path=Path(args.state), nproc=nproc
    )


def _part(args: argparse.Namespace) -> int:
    from graders.student import part

    run = _run(args)
    if run is None:
        return 2
    gradebooks = Path(args.gradebooks) if args.gradebooks else None
    return part.main(args.exercise, args.part, run=run, gradebooks=gradebooks)


def _watch(args: argparse.Namespace) -> int:
    from graders import catalog

    lang = args.lang or config.lang()
    unknown = unknown_chapters([args.chapter])
    if unknown:
        print(in_lang(unknown, lang), file=sys.stderr)
        return 2
    chapter = catalog.CHAPTERS[args.chapter]
    exercise = args.exercise and (args.exercise if "." in args.exercise else f"{chapter.id}.{args.exercise}")
    if exercise and exercise not in {e.id for e in chapter.exercises}:
        names = ", ".join(e.id.split(".", 1)[1] for e in chapter.exercises)
        print(
            t("student:no exercise", lang, chapter=chapter.id, exercise=args.exercise, names=names),
            file=sys.stderr,
        )
        return 2
    run = _run(args)
    if run is None:
        return 2
    from graders.student.watch import Watch

    return Watch(chapter.id, exercise, run=run).run()


def _common(parser: argparse.ArgumentParser) -> None:
    add_options(parser, "lang", "impl", "backend")
    parser.add_argument("--state", default=str(DEFAULT_PATH), help="the progress file (default: %(default)s)")


def add_commands(sub) -> None:
    progress = sub.add_parser(
        "progress",
        help="every chapter at a glance: exercises passed, failed, not started, and points",
        description="Grade your code in exercises/chN (student profile, as `pytest exercises/chN`) and "
        "show one row per chapter, ✓ for a chapter with every point. A chapter is graded again only "
        "when its files, its tests or the kit changed; the results are kept in .dtlab/progress.json.",
    )
    progress.add_argument("chapters", nargs="*", help="only these chapters (default: all)")
    progress.add_argument("--refresh", action="store_true", help="grade every chapter again")
    _common(progress)
    progress.set_defaults(func=_progress)

    check = sub.add_parser(
        "check",
        help="grade a chapter or one exercise and explain each failing part",
        description="Grade chapter CHAPTER (or only EXERCISE) with the student profile and show, per "
        "failing part, what was expected and seen, the rank, the smallest failing example and the hint. "
        "Exit status 0 when everything passed, 1 otherwise.",
    )
    check.add_argument("chapter", help="ch2 (or ch2.ring_all_reduce)")
    check.add_argument("exercise", nargs="?", default=None, help="ring_all_reduce or ch2.ring_all_reduce")
    check.add_argument("--explain", action="store_true", help="add the theory recap and the hints")
    check.add_argument(
        "--launcher",
        default="local",
        choices=("local", "torchrun"),
        help="torchrun: grade in a world torchrun launches (torchrun -m graders.run), its ranks the "
        "graders' worker ranks (default: local, ranks forked here)",
    )
    check.add_argument(
        "--nproc-per-node", type=int, default=4, help="processes torchrun starts (default: %(default)s)"
    )
    _common(check)
    check.set_defaults(func=_check)

    part = sub.add_parser(
        "part",
        help="grade one exercise part; exit status 0 only when it earned all its points",
        description="Grade part PART of EXERCISE (grading profile unless told) and say whether it earned "
        "its points: exit status 0 when it did, 1 otherwise. The steps of a GitHub Classroom template "
        "(dtlab release --github-classroom) run it, one per part.",
    )
    part.add_argument("exercise", help="ch2.broadcast")
    part.add_argument("part", help="tree (the parts are in the chapter's README and points table)")
    part.add_argument(
        "--gradebooks",
        default=None,
        metavar="DIR",
        help="grade the whole chapter once and keep its gradebook in DIR: the chapter's other parts "
        "read it while its files, its tests and the kit are unchanged",
    )
    add_options(part, "lang", "impl", "profile", "backend", profile="grading")
    part.set_defaults(func=_part)

    watch = sub.add_parser(
        "watch",
        help="grade a chapter, then re-grade the exercises whose code changed every time you save",
        description="Grade chapter CHAPTER (or only EXERCISE) once, then watch its files: each save "
        "re-grades the exercises whose code it changed, as `pytest exercises/chN` grades them, in one "
        "warm process (torch, pytest and the worker worlds start once). Ctrl-C stops it.",
    )
    watch.add_argument("chapter", help="ch2")
    watch.add_argument("exercise", nargs="?", default=None, help="ring_all_reduce or ch2.ring_all_reduce")
    add_options(watch, "lang", "impl", "profile", "backend")
    watch.set_defaults(func=_watch)
