"""The message that names chapters the catalogue does not declare, in every language."""

from __future__ import annotations

from graders import catalog
from graders.words.messages import say


def unknown_chapters(chapters) -> str:
    """``""`` when every name in ``chapters`` is a chapter; else the message a command prints
    (a Text, in every language), naming the unknown ones and the chapters there are."""
    unknown = [c for c in chapters if c not in catalog.CHAPTERS]
    if not unknown:
        return ""
    names, known = ", ".join(repr(c) for c in unknown), ", ".join(catalog.CHAPTERS)
    if len(unknown) > 1:
        return say("catalog:unknown chapters", names=names, known=known)
    return say("catalog:unknown chapter", names=names, known=known)
