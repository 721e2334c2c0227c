"""The kit's words as data: gettext catalogues, one domain each, read with Babel.

A domain is a folder holding its English template, ``<domain>.pot`` (each entry's key as
``msgctxt``, its English as ``msgid``), and one ``<lang>.po`` per other language (the same
``msgctxt`` and ``msgid``, the translation as ``msgstr``), as translators and teachers already
edit them (Poedit, Weblate, ``pybabel``):

* ``kit``: the kit's own words and its shared teaching messages, ``graders/words/catalogues/``;
* ``chN``: a chapter's messages, graded hints and recaps, ``graders/chapters/chN/words/``.

The languages are English and every ``<lang>.po`` of the kit's domain: a third language is one
more catalogue there (untranslated entries, in any domain, read in English). A translation
whose ``msgid`` is not the template's English any more (the English was corrected since) is not
used until it is translated again, as gettext does.
"""

from __future__ import annotations

import functools
import io
from pathlib import Path

from graders.words import numbers

KIT = "kit"
KIT_DIR = Path(__file__).resolve().parent / "catalogues"
CHAPTERS_DIR = Path(__file__).resolve().parent.parent / "chapters"


def folder_of(domain: str) -> Path:
    return KIT_DIR if domain == KIT else CHAPTERS_DIR / domain / "words"


def languages() -> tuple[str, ...]:
    """English first, then the language of every catalogue of the kit's domain."""
    return ("en", *sorted(path.stem for path in KIT_DIR.glob("*.po")))


LANGS = languages()


def _entries(path: Path) -> list[tuple[str, str, str]]:
    """``(key, msgid, msgstr)`` of every message of a catalogue, in its order."""
    from babel.messages.pofile import read_po

    catalog = read_po(io.BytesIO(path.read_bytes()))
    return [(message.context or "", message.id, message.string) for message in catalog if message.id]


@functools.cache
def domain(name: str) -> dict[str, dict[str, str]]:
    """Key -> ``{lang: text}``: the template's English, and each language that translates it."""
    folder = folder_of(name)
    template = folder / f"{name}.pot"
    if not template.is_file():
        raise KeyError(f"no catalogue {template}")
    found = {key: {"en": english} for key, english, _ in _entries(template)}
    for lang in LANGS[1:]:
        path = folder / f"{lang}.po"
        if not path.is_file():
            continue
        for key, english, text in _entries(path):
            if key in found and english == found[key]["en"] and text:
                found[key][lang] = text
    return found


def translations(name: str, lang: str) -> list[tuple[str, str, str]]:
    """``(key, msgid, msgstr)`` of ``lang``'s catalogue of a domain, as written (for the kit's checks)."""
    path = folder_of(name) / f"{lang}.po"
    return _entries(path) if path.is_file() else []


def load_all() -> None:
    """Read every domain now, and Babel's number data of every language (the fork server does,
    before it forks: a worker may say a message while graded code runs, when the guard refuses the
    imports a first reading needs)."""
    domain(KIT)
    for folder in sorted(CHAPTERS_DIR.glob("ch*/words")):
        domain(folder.parent.name)
    numbers.warm(LANGS)
