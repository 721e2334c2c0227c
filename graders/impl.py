"""Which implementation is graded: the stubs, the reference solutions, or a submission folder."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from graders.words.messages import say

#: the folder that holds the ``graders`` package: a checkout or a release of the kit (``exercises/``
#: beside it), or site-packages where the kit is installed from its wheel
PACKAGE_HOME = Path(__file__).resolve().parent.parent
#: the file that marks a student's workspace, written by ``dtlab init`` (:mod:`graders.student.workspace`)
WORKSPACE_MARKER = "dtlab-workspace.toml"


def find_workspace(start: Path) -> Path | None:
    """The workspace that holds ``start`` (the folder with :data:`WORKSPACE_MARKER`), or None."""
    for folder in (start, *start.parents):
        if (folder / WORKSPACE_MARKER).is_file():
            return folder
    return None


def _here() -> Path | None:
    try:
        return find_workspace(Path.cwd().resolve())
    except OSError:  # the working folder was removed
        return None


#: where ``exercises/``, ``.dtlab/`` and ``.cache/`` are: the workspace the command runs in (``dtlab
#: init``), else the kit's own folder (a checkout or a release)
KIT_ROOT = _here() or PACKAGE_HOME


class ImplNotFound(ValueError):
    pass


@dataclass(frozen=True)
class Impl:
    """A folder shaped like ``exercises/`` (chapter subfolders) or holding one chapter's files."""

    root: Path
    label: str

    @classmethod
    def resolve(cls, spec: str | os.PathLike, kit_root: Path = KIT_ROOT) -> Impl:
        text = str(spec)
        if text in ("exercises", "solutions"):
            return cls((kit_root / text).resolve(), text)
        path = Path(text).expanduser().resolve()
        if not path.is_dir():
            raise ImplNotFound(f"--impl {text}: " + say("run:no such folder"))
        return cls(path, text)

    @property
    def spec(self) -> str:
        """What ``--impl`` says to grade this again: its label, or its folder."""
        return self.label if self.label in ("exercises", "solutions") else str(self.root)

    def chapter_dir(self, chapter: str) -> Path:
        nested = self.root / chapter
        return nested if nested.is_dir() else self.root

    def location(self, chapter: str) -> ImplLocation:
        """Where the workers import ``chapter``'s modules of this implementation from."""
        from graders.catalog import CHAPTERS

        known = CHAPTERS.get(chapter)
        return ImplLocation(chapter, str(self.chapter_dir(chapter)), known.builds_on if known else ())

    def source(self, chapter: str, module: str) -> Path:
        return self.chapter_dir(chapter) / f"{module}.py"


@dataclass(frozen=True)
class ImplLocation:
    """Where the graded chapter's files are: ``chapter_dir/<module>.py``; ``builds_on``: the
    chapters it imports, found next to it when ``chapter_dir`` sits in a folder of chapters.

    It reaches a worker as plain data (:meth:`wire`, in the task's message) and is made again
    there (:meth:`from_wire`)."""

    chapter: str
    chapter_dir: str
    builds_on: tuple[str, ...] = ()

    @property
    def graded_root(self) -> str:
        """The folder whose files are graded code: the chapter's, or the folder of chapters that
        holds it when it builds on earlier chapters (their code runs as graded code too)."""
        parent, name = os.path.split(os.path.normpath(self.chapter_dir))
        return parent if self.builds_on and name == self.chapter else self.chapter_dir

    def wire(self) -> tuple[str, str, tuple[str, ...]]:
        """``(chapter, folder, chapters it builds on)``: the location in a task's message."""
        return self.chapter, self.chapter_dir, tuple(self.builds_on)

    @classmethod
    def from_wire(cls, data) -> ImplLocation:
        chapter, chapter_dir, builds_on = data
        return cls(chapter, chapter_dir, tuple(builds_on))
