"""``dtlab init DIR`` (a student's workspace from the installed kit) and ``dtlab upgrade [DIR]`` (a
newer kit's tests and READMEs in it, the student's modules kept): :mod:`graders.student.workspace`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import config
from graders.impl import find_workspace
from graders.words.text import exception_text, in_lang
from graders.words.vocabulary import t


def _init(args: argparse.Namespace) -> int:
    from graders.student import workspace

    lang = config.lang()
    try:
        report = workspace.init(Path(args.folder))
    except workspace.WorkspaceError as exc:
        print(f"dtlab init: {exception_text(exc, lang)}", file=sys.stderr)
        return 2
    chapters = sorted({rel.split("/")[1] for rel in report.new_stubs}, key=lambda c: int(c[2:]))
    made = t("init:made", lang, version=report.version, folder=report.folder, chapters=", ".join(chapters))
    print(made)
    readme = "README.vi.md" if lang == "vi" else "README.md"  # each chapter has both
    first = chapters[0] if chapters else "ch1"
    print(t("init:next", lang, folder=args.folder, chapter=first, readme=readme))
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    from graders.student import workspace

    lang = config.lang()
    folder = Path(args.folder) if args.folder else find_workspace(Path.cwd().resolve())
    if folder is None:
        print(t("upgrade:no workspace", lang), file=sys.stderr)
        return 2
    try:
        report = workspace.upgrade(folder)
    except workspace.WorkspaceError as exc:
        print(f"dtlab upgrade: {exception_text(exc, lang)}", file=sys.stderr)
        return 2
    print(t("upgrade:done", lang, folder=report.folder, before=report.before, version=report.version))
    for label, paths in (
        ("upgrade:updated", report.written),
        ("upgrade:new stub", report.new_stubs),
        ("upgrade:replaced", report.replaced),
        ("upgrade:removed", report.removed),
    ):
        for rel in paths:
            print(f"  {t(label, lang)}: {rel}")
    if report.kept:
        print("  " + t("upgrade:kept", lang, count=len(report.kept)))
    for note in report.notes:
        print(t("upgrade:note", lang, note=in_lang(note, lang)))
    if not (report.written or report.new_stubs or report.replaced or report.removed):
        print("  " + t("upgrade:up to date", lang))
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
