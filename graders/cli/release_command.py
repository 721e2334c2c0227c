"""``dtlab release OUT_DIR``: the student repository (:mod:`graders.authoring.release`), and with
``--github-classroom`` a GitHub Classroom template (:mod:`graders.authoring.classroom`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import catalog, config
from graders.words.chapter_names import unknown_chapters
from graders.words.text import in_lang
from graders.words.vocabulary import t


def _release(args: argparse.Namespace) -> int:
    from graders.authoring import release

    lang = config.lang()
    if args.chapters and not args.github_classroom:
        print(t("release:chapters alone", lang), file=sys.stderr)
        return 2
    classroom = (args.chapters or list(catalog.CHAPTERS)) if args.github_classroom else None
    unknown = unknown_chapters(classroom or [])
    if unknown:
        print(in_lang(unknown, lang), file=sys.stderr)
        return 2
    out = Path(args.out_dir)
    if args.force and out.exists():
        import shutil

        shutil.rmtree(out)
    try:
        published = release.publish(out, classroom=classroom)
    except FileExistsError:
        print(t("release:not empty", lang, out=out.absolute()), file=sys.stderr)
        return 2
    if published.leaks:
        print(t("release:leaks", lang, out=out), file=sys.stderr)
        for leak in published.leaks[:20]:
            print(f"  {leak}", file=sys.stderr)
        return 1
    files = published.files
    chapters = sorted({f.split("/")[1] for f in files if f.startswith("exercises/") and f.count("/") >= 2})
    print(t("release:made", lang, out=out, files=len(files), chapters=", ".join(chapters)))
    print(t("release:left out", lang, excluded=", ".join(release.EXCLUDE)))
    if classroom is not None:
        from graders.authoring import classroom as github_classroom
        from graders.authoring import devcontainer

        steps = github_classroom.steps(classroom)
        print(
            t(
                "release:classroom",
                lang,
                workflow=github_classroom.WORKFLOW,
                parts=len(steps),
                chapters=", ".join(classroom),
                points=sum(s.points for s in steps),
                profile=github_classroom.PROFILE,
            )
        )
        print(t("release:codespaces", lang, path=devcontainer.PATH))
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
        "part (grading profile, public graders), and the Classroom score is the kit's points; "
        ".devcontainer/devcontainer.json sets up a Codespace (Python 3.11, torch, the kit, pytest)",
    )
    rel.add_argument(
        "--chapters",
        nargs="+",
        default=None,
        metavar="CHAPTER",
        help="with --github-classroom: the chapters the workflow grades (default: every chapter)",
    )
    rel.set_defaults(func=_release)
