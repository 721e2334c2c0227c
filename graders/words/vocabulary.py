"""The kit's own words (statuses, headings, labels) and the names of the exercises' parts, in every
language: entries ``word:<key>`` and ``part:<name>`` of the kit's catalogue
(``graders/words/catalogues/``).
"""

from __future__ import annotations

from graders.words.catalogue import KIT, LANGS, domain
from graders.words.numbers import fill

__all__ = ["LANGS", "exercise_title", "part_name", "t", "word"]


def word(key: str) -> dict[str, str] | None:
    """``{lang: text}`` of the kit's word ``key``, or None."""
    return domain(KIT).get(f"word:{key}")


def t(key: str, lang: str = "en", **values: object) -> str:
    """The word ``key`` in ``lang`` (its English where ``lang`` has none; ``key`` if unknown), its
    fields filled with ``values`` when there are any, numbers as ``lang`` writes them
    (:func:`graders.words.numbers.fill`)."""
    entry = word(key)
    text = key if entry is None else entry.get(lang) or entry["en"]
    return fill(text, lang, **values) if values else text


def part_name(part: str, lang: str = "en") -> str:
    """An exercise part as the points table shows it in ``lang``."""
    entry = domain(KIT).get(f"part:{part}")
    return (entry.get(lang) or part) if entry else part


def exercise_title(exercise, lang: str = "en") -> str:
    """An exercise's title in ``lang``: the kit's word ``exercise title:<id>``, its English title
    (``exercise.title``, the catalogue's) where the kit has no other."""
    said = word(f"exercise title:{exercise.id}")
    return (said.get(lang) if said else None) or exercise.title
