"""The graders' teaching messages in both languages of the course (``--lang vi``).

A message is a key into a table of templates: the shared one below (``SHARED``: comparisons,
traffic and memory assertions) and one per chapter, ``graders/chapters/chN/messages.py``
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

from graders.i18n import LANGS, t


class Text(str):
    """A message in every language; as a ``str`` it is the English one."""

    by_lang: dict[str, str]

    def __new__(cls, by_lang: Mapping[str, str]) -> Text:
        text = super().__new__(cls, by_lang["en"])
        text.by_lang = {lang: by_lang.get(lang, by_lang["en"]) for lang in LANGS}
        return text

    def in_lang(self, lang: str) -> str:
        return self.by_lang.get(lang, self.by_lang["en"])

    def __add__(self, other: object) -> Text:
        return Text({lang: self.in_lang(lang) + in_lang(other, lang) for lang in LANGS})

    def __radd__(self, other: object) -> Text:
        return Text({lang: in_lang(other, lang) + self.in_lang(lang) for lang in LANGS})

    def __reduce__(self):
        return (Text, (dict(self.by_lang),))


def in_lang(value: object, lang: str) -> str:
    """``value`` in ``lang`` (a plain ``str`` is the same in every language)."""
    return value.in_lang(lang) if isinstance(value, Text) else str(value)


def each_lang(make) -> Text:
    """A Text from ``make(lang) -> str``, called once per language."""
    return Text({lang: make(lang) for lang in LANGS})


def join(separator: str, parts: Iterable[object]) -> Text:
    """``separator.join(parts)`` in every language."""
    parts = list(parts)
    return each_lang(lambda lang: separator.join(in_lang(p, lang) for p in parts))


def labelled(label_key: str, value: object) -> Text:
    """``"\\nexample: <value>"`` with the label (an :mod:`graders.i18n` word) in every language."""
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
    return each_lang(
        lambda lang: templates[lang].format(
            **{name: in_lang(v, lang) if isinstance(v, Text) else v for name, v in values.items()}
        )
    )


SHARED: dict[str, dict[str, str]] = {
    # -- graders/comm/overlap.py: a bucket launched after backward moved on ---------------------
    "late bucket": {
        "en": "bucket [{names}] had all its gradients, but {when} only {launched} {collective}(s) had "
        "been launched for the {completed} complete bucket(s): its {collective} waited for backward "
        "instead of overlapping it.",
        "vi": "bucket [{names}] đã có đủ gradient, nhưng {when} mới chỉ có {launched} lần {collective} "
        "được khởi chạy cho {completed} bucket đã đủ gradient: {collective} của nó đã chờ backward thay "
        "vì chạy chồng lấp (overlap) với backward.",
    },
    "late bucket:when accumulating": {
        "en": "when the gradient of {name} began to accumulate",
        "vi": "khi gradient của {name} bắt đầu được tích lũy",
    },
    "late bucket:when backward returned": {"en": "when backward returned", "vi": "khi backward trả về"},
    # -- graders/checks.py: values against the reference --------------------------------------
    "expected value": {
        "en": "{what}: expected {expected}, got {got}.",
        "vi": "{what}: cần {expected}, nhận được {got}.",
    },
    "expected shape": {
        "en": "{what}: expected shape {expected}, got {got}.",
        "vi": "{what}: cần shape {expected}, nhận được {got}.",
    },
    "expected dtype": {
        "en": "{what}: expected dtype {expected}, got {got}.",
        "vi": "{what}: cần dtype {expected}, nhận được {got}.",
    },
    "wrong values": {
        "en": "{what}: wrong values at {bad} of {numel} positions; first at index {index}: expected "
        "{expected!r}, got {got!r}.",
        "vi": "{what}: sai giá trị ở {bad} trên {numel} vị trí; vị trí sai đầu tiên là chỉ số {index}: cần "
        "{expected!r}, nhận được {got!r}.",
    },
    "preview window": {
        "en": "  flat positions {start}..{stop} of {numel}, first mismatch at {at}:\n",
        "vi": "  các vị trí phẳng {start}..{stop} trên {numel}, chỗ sai đầu tiên ở {at}:\n",
    },
    "preview": {
        "en": "  expected {expected}\n  got      {got}",
        "vi": "  cần       {expected}\n  nhận được {got}",
    },
    "modified input": {
        "en": "{what} was modified, but the function must leave its input unchanged.",
        "vi": "{what} đã bị thay đổi, nhưng hàm phải giữ nguyên đầu vào.",
    },
    "modified input:hint": {
        "en": "work on a copy (tensor.clone()) or on freshly allocated buffers.",
        "vi": "hãy làm việc trên một bản sao (tensor.clone()) hoặc trên buffer mới cấp phát.",
    },
    "expected a number": {
        "en": "{what}: expected a number, got {got!r}.",
        "vi": "{what}: cần một số, nhận được {got!r}.",
    },
    "describe:tensor": {
        "en": "a {dtype} tensor of shape {shape}",
        "vi": "một tensor {dtype} có shape {shape}",
    },
    "describe:object": {"en": "a {type}", "vi": "một đối tượng {type}"},
}
