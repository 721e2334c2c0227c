"""The graders' teaching messages, said in every language of the course (``--lang vi``).

A message is a key into a catalogue (:mod:`graders.words.catalogue`): a chapter's own for
``"chN:..."`` keys (``graders/chapters/chN/words/``), the kit's for the shared ones (comparisons,
traffic, training and memory assertions, the worker world's reports). Every language of an entry
names the same ``str.format`` fields; ``tests/words/test_messages.py`` checks that, that no language
copies the English, that every key is said, and that no grader passes English text of its own.

:func:`say` fills the templates and returns a :class:`~graders.words.text.Text`: the English
``str`` that carries every language, its numbers written as each language writes them
(:mod:`graders.words.numbers`: ``12,345`` and ``0.25`` in English, ``12.345`` and ``0,25`` in
Vietnamese).
"""

from __future__ import annotations

from collections.abc import Mapping

from graders.words.catalogue import KIT, domain
from graders.words.numbers import fill
from graders.words.text import PLAIN, Text, each_lang, fields_of, in_lang


def domain_of(key: str) -> str:
    """The catalogue that holds ``key``: its chapter's for ``"chN:..."``, else the kit's."""
    chapter, sep, _ = key.partition(":")
    return chapter if sep and chapter.startswith("ch") and chapter[2:].isdigit() else KIT


def templates(key: str) -> Mapping[str, str]:
    """``{lang: template}`` of the message ``key`` (the languages that translate it)."""
    try:
        return domain(domain_of(key))[key]
    except KeyError:
        raise KeyError(f"no message {key!r} in the {domain_of(key)} catalogue") from None


def say(key: str, **values: object) -> Text:
    """The message ``key`` with ``values`` filled in, in every language. A value that is itself a
    Text is filled in its own language; other values keep their format specs (``{x:g}``), and
    numbers are written as each language writes them (:func:`graders.words.numbers.fill`)."""
    found = templates(key)
    text = each_lang(
        lambda lang: fill(
            found.get(lang, found["en"]),
            lang,
            **{name: in_lang(v, lang) if isinstance(v, Text) else v for name, v in values.items()},
        )
    )
    text.fields = {
        **fields_of(*values.values()),
        **{name: v for name, v in values.items() if isinstance(v, PLAIN) and not isinstance(v, Text)},
    }
    return text
