"""Graded hints and theory recaps for every exercise, in English and Vietnamese.

The words live with their chapter, in ``graders/chapters/chN/hints.py``: plain data, two tables
keyed by the exercise's name inside the chapter (``"ring_all_reduce"``),

* ``HINTS``: the levels, first a nudge (where to look), last the key idea, never the answer;
  each level is an ``(English, Vietnamese)`` pair, so both languages have the same levels;
* ``RECAPS``: an ``(English, Vietnamese)`` pair, a few lines of the lesson the exercise rests on.

This module is the one way to read them: :func:`hints`, :func:`recap`, :func:`levels`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from graders import catalog
from graders.words.vocabulary import LANGS


def _language(lang: str) -> int:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose from {', '.join(LANGS)}")
    return LANGS.index(lang)


def _chapter_module(exercise: str) -> ModuleType:
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
    return importlib.import_module(f"graders.chapters.{catalog.EXERCISES[exercise].chapter}.hints")


def _entry(exercise: str, table: str):
    name = exercise.split(".", 1)[1]
    module = _chapter_module(exercise)
    try:
        return getattr(module, table)[name]
    except KeyError:
        raise KeyError(f"{exercise} has no {table.lower()}: add them to {module.__name__}") from None


def hints(exercise: str, lang: str = "en") -> list[str]:
    """The graded hints of ``exercise`` (``"ch2.ring_all_reduce"``), level 1 first."""
    column = _language(lang)
    return [pair[column] for pair in _entry(exercise, "HINTS")]


def levels(exercise: str) -> int:
    """How many hint levels ``exercise`` has."""
    return len(_entry(exercise, "HINTS"))


def recap(exercise: str, lang: str = "en") -> str:
    """The theory recap of ``exercise``: what it computes, what the graders measure, the usual mistakes."""
    column = _language(lang)
    return _entry(exercise, "RECAPS")[column]
