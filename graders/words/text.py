"""A message in every language at once: :class:`Text`, and the helpers that keep it so.

A Text *is* its English ``str`` (code and tests that read messages as English keep working) and
carries every language of the kit (:data:`~graders.words.catalogue.LANGS`); concatenating,
joining or formatting Texts keeps them all, and :func:`in_lang` takes one out at render time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from graders.words.catalogue import LANGS
from graders.words.numbers import format_number
from graders.words.vocabulary import t


class Text(str):
    """A message in every language; as a ``str`` it is the English one. ``fields`` keeps the plain
    values it was said with (``rank=1``), and those of the Texts said inside it, so that what a
    message is about stays data (the first value of a name wins)."""

    by_lang: dict[str, str]
    fields: dict[str, object]

    def __new__(cls, by_lang: Mapping[str, str], fields: Mapping[str, object] | None = None) -> Text:
        text = super().__new__(cls, by_lang["en"])
        text.by_lang = {lang: by_lang.get(lang, by_lang["en"]) for lang in LANGS}
        text.fields = dict(fields or {})
        return text

    def in_lang(self, lang: str) -> str:
        return self.by_lang.get(lang, self.by_lang["en"])

    def __add__(self, other: object) -> Text:
        return Text(
            {lang: self.in_lang(lang) + in_lang(other, lang) for lang in LANGS}, fields_of(self, other)
        )

    def __radd__(self, other: object) -> Text:
        return Text(
            {lang: in_lang(other, lang) + self.in_lang(lang) for lang in LANGS}, fields_of(other, self)
        )

    def __reduce__(self):
        return (Text, (dict(self.by_lang), dict(self.fields)))


#: the values a Text keeps as its fields: plain data that crosses processes and JSON as it is
PLAIN = (int, float, str)


def fields_of(*parts: object) -> dict[str, object]:
    """The fields of ``parts``, the first part's winning."""
    merged: dict[str, object] = {}
    for part in reversed(parts):
        merged.update(getattr(part, "fields", None) or {})
    return merged


def in_lang(value: object, lang: str) -> str:
    """``value`` in ``lang`` (a plain ``str`` is the same in every language)."""
    return value.in_lang(lang) if isinstance(value, Text) else str(value)


def in_every_lang(value: object) -> dict[str, str]:
    """``{lang: value in lang}`` for every language of the kit: a Text as data (JSON, a report)."""
    return {lang: in_lang(value, lang) for lang in LANGS}


def said_by(exc: BaseException) -> str:
    """What ``exc`` says: the Text it was raised with (``raise ValueError(say(...))``), in every
    language; else ``str(exc)``."""
    said = exc.args[0] if len(exc.args) == 1 else None
    return said if isinstance(said, Text) else str(exc)


def exception_text(exc: BaseException, lang: str) -> str:
    """What ``exc`` says in ``lang`` (:func:`said_by`)."""
    return in_lang(said_by(exc), lang)


def each_lang(make) -> Text:
    """A Text from ``make(lang) -> str``, called once per language."""
    return Text({lang: make(lang) for lang in LANGS})


def join(separator: str, parts: Iterable[object]) -> Text:
    """``separator.join(parts)`` in every language."""
    parts = list(parts)
    text = each_lang(lambda lang: separator.join(in_lang(p, lang) for p in parts))
    text.fields = fields_of(*parts)
    return text


def labelled(label_key: str, value: object) -> Text:
    """``"\\nexample: <value>"`` with the label (a vocabulary word) in every
    language."""
    return each_lang(lambda lang: f"\n{t(label_key, lang)}: {in_lang(value, lang)}")


def number(value: object, spec: str = "") -> Text:
    """``format(value, spec)`` as each language writes it (:func:`~graders.words.numbers.format_number`):
    for a message field that takes the number written already (``got=number(got, ".6g")``)."""
    return each_lang(lambda lang: format_number(value, spec, lang))
