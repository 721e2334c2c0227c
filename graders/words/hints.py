"""Graded hints and theory recaps for every exercise, in every language of the course.

The words live with their chapter, in its catalogue (``graders/chapters/chN/words/``), keyed by the
exercise's name inside the chapter:

* ``hint:<name>:<level>``: the levels, 1 a nudge (where to look), the last the key idea, never
  the answer; every language has the same levels;
* ``recap:<name>``: a few lines of the lesson the exercise rests on.

This module is the one way to read them: :func:`hints`, :func:`recap`, :func:`levels`.
"""

from __future__ import annotations

from graders import catalog
from graders.words.catalogue import LANGS, domain


def _language(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose from {', '.join(LANGS)}")
    return lang


def _words(exercise: str) -> dict[str, dict[str, str]]:
    if exercise not in catalog.EXERCISES:
        chapter = exercise.split(".", 1)[0]
        known = (
            ", ".join(e.id for e in catalog.CHAPTERS[chapter].exercises)
            if chapter in catalog.CHAPTERS
            else ""
        )
        raise KeyError(
            f"unknown exercise {exercise!r}"
            + (f"; {chapter} has {known}" if known else f"; chapters: {', '.join(catalog.CHAPTERS)}")
        )
    return domain(catalog.EXERCISES[exercise].chapter)


def _levels(exercise: str) -> list[dict[str, str]]:
    words, name = _words(exercise), exercise.split(".", 1)[1]
    found = []
    while f"hint:{name}:{len(found) + 1}" in words:
        found.append(words[f"hint:{name}:{len(found) + 1}"])
    if not found:
        raise KeyError(f"{exercise} has no hints: add hint:{name}:1 ... to its chapter's catalogue")
    return found


def hints(exercise: str, lang: str = "en") -> list[str]:
    """The graded hints of ``exercise`` (``"ch2.ring_all_reduce"``), level 1 first."""
    lang = _language(lang)
    return [level.get(lang, level["en"]) for level in _levels(exercise)]


def levels(exercise: str) -> int:
    """How many hint levels ``exercise`` has."""
    return len(_levels(exercise))


def recap(exercise: str, lang: str = "en") -> str:
    """The theory recap of ``exercise``: what it computes, what the graders measure, the usual mistakes."""
    lang = _language(lang)
    name = exercise.split(".", 1)[1]
    entry = _words(exercise).get(f"recap:{name}")
    if entry is None:
        raise KeyError(f"{exercise} has no recap: add recap:{name} to its chapter's catalogue")
    return entry.get(lang, entry["en"])
