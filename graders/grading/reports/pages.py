"""The teacher's and the students' HTML pages, rendered from Jinja2 templates in ``templates/``.

Escaping is the environment's, not each page's: autoescaping is on, so every value a template
prints is HTML-escaped, and every string is first stripped of control characters
(:func:`graders.infra.safe_text.clean`, the environment's ``finalize``). A template names no
``|safe``; the one value that is already HTML is a :class:`markupsafe.Markup` made by
:func:`data_image`. An undefined name is an error (``StrictUndefined``), not an empty string.

Every page speaks one language: its ``<html lang>``, and its words through ``t(key, **values)``
(the kit's words, :func:`graders.words.vocabulary.t`) and numbers through the ``num(spec)``
filter (:func:`graders.words.numbers.format_number`), both bound to the page's language.
"""

from __future__ import annotations

import base64
import functools

from graders.infra.safe_text import clean
from graders.words.numbers import format_number
from graders.words.vocabulary import t


@functools.cache
def environment():
    """The one Jinja2 environment of the kit's pages (made at first use: jinja2 loads only then)."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("graders.grading.reports", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=_cleaned,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _cleaned(value: object) -> object:
    """What a template prints: a string (not Markup) without control characters; else as it is."""
    from markupsafe import Markup

    return clean(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def render(template: str, lang: str, /, **context: object) -> str:
    """The page ``template`` in ``lang``, filled with ``context``."""
    page = environment().get_template(template)
    return page.render(
        lang=lang,
        t=functools.partial(t, lang=lang),
        num=functools.partial(_number, lang=lang),
        **context,
    )


def _number(value: object, spec: str = "", *, lang: str) -> str:
    return format_number(value, spec, lang)


def data_image(png: bytes, alt: str):
    """An ``<img>`` showing ``png`` inline (a ``data:`` URI): the pages' one piece of HTML made
    outside a template (``Markup.format`` escapes what it fills in, ``alt`` too)."""
    from markupsafe import Markup

    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return Markup('<img src="{}" alt="{}">').format(uri, clean(alt))
