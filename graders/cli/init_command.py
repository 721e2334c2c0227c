"""``dtlab init DIR`` (a student's workspace from the installed kit) and ``dtlab upgrade [DIR]`` (a
newer kit's tests and READMEs in it, the student's modules kept): :mod:`graders.student.workspace`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import config
from graders.impl import find_workspace
from graders.words.vocabulary import t


def _init(args: argparse.Namespace) -> int:
    from graders.student import workspace

    try:
        report = workspace.init(Path(args.folder))
    except workspace.WorkspaceError as exc:
        print(f"dtlab init: {exc}", file=sys.stderr)
        return 2
    chapters = sorted({rel.split("/")[1] for rel in report.new_stubs}, key=lambda c: int(c[2:]))
    lang = config.lang()
    made = t("init:made", lang, version=report.version, folder=report.folder, chapters=", ".join(chapters))
    print(made)
    readme = "README.vi.md" if lang == "vi" else "README.md"  # each chapter has both
    first = chapters[0] if chapters else "ch1"
    print(t("init:next", lang, folder=args.folder, chapter=first, readme=readme))
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    from graders.student import workspace

    folder = Path(args.folder) if args.folder else find_workspace(Path.cwd().resolve())
    if folder is None:
        print("dtlab upgrade: not inside a dtlab workspace; name its folder", file=sys.stderr)
        return 2
    try:
        report = workspace.upgrade(folder)
    except workspace.WorkspaceError as exc:
        print(f"dtlab upgrade: {exc}", file=sys.stderr)
        return 2
    print(f"dtlab upgrade: {report.folder} from kit {report.before} to {report.version}")
    for label, paths in (
        ("updated", report.written),
        ("new stub", report.new_stubs),
        ("stub replaced (it held nothing of yours)", report.replaced),
        ("removed (no longer in the kit)", report.removed),
    ):
        for rel in paths:
            print(f"  {label}: {rel}")
    if report.kept:
        print(f"  kept as they are (your code): {len(report.kept)} module(s)")
    for note in report.notes:
        print(f"note: {note}; your file is unchanged: the graders call the new stub's signature")
    if not (report.written or report.new_stubs or report.replaced or report.removed):
        print("  already up to date")
    return 0


def add_commands(sub) -> None:
    init = sub.add_parser(
        "init",
        help="write a workspace: each chapter's stubs, tests and README (then cd DIR; pytest exercises/ch2)",
        description="Write a dtlab workspace into DIR: exercises/chN/ (stubs, public tests, README), "
        "a README, pytest's settings and a .gitignore. pytest and every dtlab command run inside it "
        "grade its exercises/, as in the kit's repository.",
    )
    init.add_argument("folder", metavar="DIR", help="a new or empty folder")
    init.set_defaults(func=_init)

    upgrade = sub.add_parser(
        "upgrade",
        help="bring the installed kit's tests and READMEs into a workspace; your modules stay as they are",
        description="Update the workspace DIR (default: the one you are in) to the installed kit: its "
        "tests, READMEs and stub digests are rewritten, stubs you never changed are replaced by the new "
        "ones, and your modules are left byte for byte; a note names each function whose signature "
        "differs from the new stub's.",
    )
    upgrade.add_argument("folder", metavar="DIR", nargs="?", default=None, help="the workspace")
    upgrade.set_defaults(func=_upgrade)
