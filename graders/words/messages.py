"""The graders' teaching messages in both languages of the course (``--lang vi``).

A message is a key into a table of templates: the shared one (``SHARED``, in
:mod:`graders.words.shared_messages`: comparisons, traffic, training and memory assertions, the worker
world's reports) and one per chapter, ``graders/chapters/chN/messages.py``
(``MESSAGES``, keys ``"chN:..."``). Each entry holds ``{"en": ..., "vi": ...}`` with the same
``str.format`` fields. ``tests/test_messages.py`` fails when a key lacks either language, when
the two languages name different fields, and when a grader passes English text of its own.

:func:`say` fills both templates and returns a :class:`Text`: a ``str`` that *is* the English
text (so code and tests that read messages as English keep working) and carries every language.
Concatenating or formatting Texts keeps both; :func:`in_lang` takes one out.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping

from graders.words.shared_messages import SHARED
from graders.words.vocabulary import LANGS, t


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
        return Text({lang: self.in_lang(lang) + in_lang(other, lang) for lang in LANGS}, _fields(self, other))

    def __radd__(self, other: object) -> Text:
        return Text({lang: in_lang(other, lang) + self.in_lang(lang) for lang in LANGS}, _fields(other, self))

    def __reduce__(self):
        return (Text, (dict(self.by_lang), dict(self.fields)))


#: the values a Text keeps as its fields: plain data that crosses processes and JSON as it is
_PLAIN = (int, float, str)


def _fields(*parts: object) -> dict[str, object]:
    """The fields of ``parts``, the first part's winning."""
    merged: dict[str, object] = {}
    for part in reversed(parts):
        merged.update(getattr(part, "fields", None) or {})
    return merged


def in_lang(value: object, lang: str) -> str:
    """``value`` in ``lang`` (a plain ``str`` is the same in every language)."""
    return value.in_lang(lang) if isinstance(value, Text) else str(value)


def each_lang(make) -> Text:
    """A Text from ``make(lang) -> str``, called once per language."""
    return Text({lang: make(lang) for lang in LANGS})


def join(separator: str, parts: Iterable[object]) -> Text:
    """``separator.join(parts)`` in every language."""
    parts = list(parts)
    text = each_lang(lambda lang: separator.join(in_lang(p, lang) for p in parts))
    text.fields = _fields(*parts)
    return text


def labelled(label_key: str, value: object) -> Text:
    """``"\\nexample: <value>"`` with the label (a vocabulary word) in every
    language."""
    return each_lang(lambda lang: f"\n{t(label_key, lang)}: {in_lang(value, lang)}")


def table(key: str) -> Mapping[str, Mapping[str, str]]:
    """The table that holds ``key``: a chapter's for ``"chN:..."``, else the shared one."""
    chapter, sep, _ = key.partition(":")
    if sep and chapter.startswith("ch") and chapter[2:].isdigit():
        return importlib.import_module(f"graders.chapters.{chapter}.messages").MESSAGES
    return SHARED


def say(key: str, **values: object) -> Text:
    """The message ``key`` with ``values`` filled in, in every language. A value that is itself a
    Text is filled in its own language; other values keep their format specs (``{x:g}``)."""
    templates = table(key)[key]
    text = each_lang(
        lambda lang: templates[lang].format(
            **{name: in_lang(v, lang) if isinstance(v, Text) else v for name, v in values.items()}
        )
    )
    text.fields = {
        **_fields(*values.values()),
        **{name: v for name, v in values.items() if isinstance(v, _PLAIN) and not isinstance(v, Text)},
    }
    return text
