"""Where the chapters are: each declares itself in its own folder, ``graders/chapters/chN/chapter.py``
(``CHAPTER``, a :class:`~graders.catalog.entries.Chapter`), and the catalog finds them there.

A new chapter is a new folder: nothing outside it names it. The declarations import only the
catalog's shapes and vocabulary, so finding them imports no grader.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from graders.catalog.entries import Chapter

CHAPTERS_DIR = Path(__file__).resolve().parent.parent / "chapters"


class CatalogError(ValueError):
    """A chapter's declaration contradicts itself or its folder."""


def chapter_ids(root: Path = CHAPTERS_DIR) -> list[str]:
    """The chapters that declare themselves (``chN/chapter.py``), in chapter order."""
    found = [p.parent.name for p in root.glob("ch*/chapter.py") if p.parent.name[2:].isdigit()]
    return sorted(found, key=lambda chapter: int(chapter[2:]))


def declared_chapters() -> list[Chapter]:
    """Every chapter's ``CHAPTER``, checked against its folder, in chapter order."""
    chapters = []
    for chapter_id in chapter_ids():
        chapter = importlib.import_module(f"graders.chapters.{chapter_id}.chapter").CHAPTER
        _check(chapter_id, chapter)
        chapters.append(chapter)
    return chapters


def _check(folder: str, chapter: Chapter) -> None:
    where = f"graders/chapters/{folder}/chapter.py"
    if chapter.id != folder:
        raise CatalogError(f"{where} declares chapter {chapter.id!r}; its folder is {folder!r}")
    names = {}
    for entry in chapter.exercises:
        if entry.chapter != folder:
            raise CatalogError(f"{where}: exercise {entry.id} belongs to another chapter")
        if entry.id in names:
            raise CatalogError(f"{where}: exercise {entry.id} is declared twice")
        names[entry.id.split(".", 1)[1]] = entry
    for name, parts in chapter.hidden.items():
        if name not in names:
            raise CatalogError(f"{where}: hidden parts of {name!r}, which is not one of its exercises")
        unknown = sorted(set(parts) - set(names[name].parts))
        if unknown:
            raise CatalogError(f"{where}: {name} has no part {', '.join(unknown)} to grade hidden")


def grader_modules(chapter_id: str, stem: str, root: Path = CHAPTERS_DIR) -> list[str]:
    """The dotted names of a chapter's grader modules called ``stem`` (``"tasks"``), its sub-wings'
    too, found on disk without importing them."""
    folder = root / chapter_id
    found = sorted(folder.rglob(f"{stem}.py"))
    return [
        ".".join(("graders", "chapters", *path.relative_to(root).with_suffix("").parts)) for path in found
    ]
