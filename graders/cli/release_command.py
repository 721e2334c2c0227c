"""``dtlab release OUT_DIR``: the student repository (:mod:`graders.authoring.release`), and with
``--github-classroom`` a GitHub Classroom template (:mod:`graders.authoring.classroom`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import catalog


def _release(args: argparse.Namespace) -> int:
    from graders.authoring import release

    if args.chapters and not args.github_classroom:
        print("dtlab release: --chapters chooses what --github-classroom grades; add it", file=sys.stderr)
        return 2
    classroom = (args.chapters or list(catalog.CHAPTERS)) if args.github_classroom else None
    unknown = catalog.unknown_chapters(classroom or [])
    if unknown:
        print(unknown, file=sys.stderr)
        return 2
    out = Path(args.out_dir)
    if args.force and out.exists():
        import shutil

        shutil.rmtree(out)
    try:
        published = release.publish(out, classroom=classroom)
    except FileExistsError as exc:
        print(f"{exc}: choose an empty folder, or --force to replace it", file=sys.stderr)
        return 2
    if published.leaks:
        print(f"the release would give answers away; nothing was written to {out}:", file=sys.stderr)
        for leak in published.leaks[:20]:
            print(f"  {leak}", file=sys.stderr)
        return 1
    files = published.files
    chapters = sorted({f.split("/")[1] for f in files if f.startswith("exercises/") and f.count("/") >= 2})
    print(f"student release in {out}: {len(files)} files, chapters {', '.join(chapters)}")
    print("left out: " + ", ".join(release.EXCLUDE) + "; no solution line appears in it")
    if classroom is not None:
        from graders.authoring import classroom as github_classroom

        steps = github_classroom.steps(classroom)
        print(
            f"GitHub Classroom: {github_classroom.WORKFLOW} grades {len(steps)} parts of "
            f"{', '.join(classroom)} ({sum(s.points for s in steps)} points, {github_classroom.PROFILE} "
            "profile); push the release to a template repository (docs/lms.md, GitHub Classroom)"
        )
    return 0


def add_command(sub) -> None:
    rel = sub.add_parser(
        "release",
        help="build the student repository (stubs, public graders, docs; no solutions, hidden graders)",
    )
    rel.add_argument("out_dir", help="empty folder for the release")
    rel.add_argument("--force", action="store_true", help="replace OUT_DIR if it exists")
    rel.add_argument(
        "--github-classroom",
        action="store_true",
        help="make it a GitHub Classroom template: .github/workflows/classroom.yml grades every exercise "
        "part (grading profile, public graders), and the Classroom score is the kit's points",
    )
    rel.add_argument(
        "--chapters",
        nargs="+",
        default=None,
        metavar="CHAPTER",
        help="with --github-classroom: the chapters the workflow grades (default: every chapter)",
    )
    rel.set_defaults(func=_release)
