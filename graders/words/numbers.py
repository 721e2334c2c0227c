"""Numbers in the reader's language: every number a message prints, formatted for its language.

English reads ``12,345`` and ``0.25``; Vietnamese reads ``12.345`` and ``0,25`` (a Vietnamese
reader takes ``1,024`` for one point zero two four). The symbols come from Babel's locale data
(CLDR) for each language of the kit; the digits are Python's, the same in every language: a
message's ``{x:.2f}`` rounds as ``str.format`` does (Babel rounds the decimal text half-even, so
``2.675`` would read ``2.67`` in English and ``2,68`` in Vietnamese). English is exactly what
``str.format`` prints.

* :func:`format_number`: one value with a ``str.format`` spec (``,`` groups, ``.2f``, ``g``,
  ``.1%``, no spec) in a language;
* :func:`fill`: a template filled as ``str.format`` does, each number through :func:`format_number`
  (how :func:`graders.words.messages.say` and the kit's words fill every language).

:func:`graders.words.text.number` is the same as a Text in every language, for a value a message
takes already written (``say("...", got=number(x, ".6g"))``); :func:`graders.words.vocabulary.t`
fills the kit's words through :func:`fill`. A count a sentence states once (the ZeRO paper's 7.5B
parameters) is written in each catalogue as its language writes it (``7,5 tỷ tham số``).

:func:`warm` loads Babel and every language's number data: :func:`graders.words.catalogue.load_all`
calls it (the fork server does, before it forks), since a worker may say a message while graded
code runs, when the guard refuses the imports a first use needs. This module imports none of the
kit's: the catalogue, the vocabulary and the Texts all write numbers with it.
"""

from __future__ import annotations

import functools
import numbers as _numbers
import re
import string
from collections.abc import Iterable
from decimal import Decimal

#: a ``str.format`` spec, as the format-spec mini-language writes it
_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<grouping>[,_])?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%])?",
    re.DOTALL,
)
#: the presentation types that write a number in decimal digits (the others: binary, hex, a char)
_DECIMAL_TYPES = frozenset("deEfFgGn%")
#: stands in for a fill character while the number's own symbols are swapped
_FILL = "\x00"


def is_number(value: object) -> bool:
    """A value a message prints as a number: an int or float (numpy's too), not a bool."""
    return isinstance(value, _numbers.Real | Decimal) and not isinstance(value, bool)


@functools.cache
def _locale(lang: str):
    """Babel's locale of ``lang``, or None where Babel has none (it reads as English)."""
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(lang)
    except (UnknownLocaleError, ValueError):
        return None


@functools.cache
def _symbols(lang: str) -> dict[int, str]:
    """``str.translate`` table from Python's number symbols to ``lang``'s (empty: the same)."""
    from babel import numbers

    locale = _locale(lang)
    if lang == "en" or locale is None:
        return {}
    ours = {
        ",": numbers.get_group_symbol(locale),
        ".": numbers.get_decimal_symbol(locale),
        "-": numbers.get_minus_sign_symbol(locale),
        "+": numbers.get_plus_sign_symbol(locale),
    }
    # a symbol written with bidi marks (some locales' minus) would misalign columns: keep Python's
    return {ord(python): theirs for python, theirs in ours.items() if theirs != python and len(theirs) == 1}


def format_number(value: object, spec: str = "", lang: str = "en") -> str:
    """``format(value, spec)`` in ``lang``: English exactly as ``str.format`` writes it, another
    language with its own decimal sign and grouping (``12,345.5`` -> ``12.345,5`` in Vietnamese).
    A value that is not a number, or a spec that does not write decimal digits (``x``, ``b``), is
    formatted as ``str.format`` does."""
    if lang == "en" or not is_number(value):
        return format(value, spec)
    parts = _SPEC.fullmatch(spec)
    kind = parts["type"] if parts else None
    table = _symbols(lang)
    if not table or parts is None or (kind is not None and kind not in _DECIMAL_TYPES):
        return format(value, spec)
    fill = parts["fill"]
    if fill is not None:  # the padding keeps its character, whatever the number's symbols become
        return format(value, _FILL + spec[1:]).translate(table).replace(_FILL, fill)
    return format(value, spec).translate(table)


class _Formatter(string.Formatter):
    """``str.format`` with each number through :func:`format_number` in one language."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: object, format_spec: str) -> str:
        return format_number(value, format_spec, self.lang)


def fill(template: str, lang: str, /, *args: object, **values: object) -> str:
    """``template.format(*args, **values)`` in ``lang``: each int or float field (a bool aside)
    through :func:`format_number` with the field's spec; English is exactly ``str.format``'s."""
    if lang == "en" or not _symbols(lang):
        return template.format(*args, **values)
    return _Formatter(lang).format(template, *args, **values)


def warm(langs: Iterable[str]) -> None:
    """Import Babel's number formatting and read the number data of ``langs`` now, while imports
    are allowed (see the module's docstring)."""
    for lang in langs:
        format_number(-12345.5, ",.2f", lang)
        fill("{x:,}", lang, x=1)
