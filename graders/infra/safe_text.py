"""Text that came from a submission, made safe for the teacher's files and terminal.

Messages, notes and integrity flags quote what students wrote (values, file names, exception
text), so they can hold anything: ANSI escapes, a Markdown fence, raw HTML. :func:`clean`
strips control characters (all but newline and tab) and the invisible bidirectional overrides
everywhere; :func:`md_inline` and :func:`md_code` escape for Markdown (CommonMark), so that no
message can close its code block or inject a link, an image or HTML.
"""

from __future__ import annotations

import re

#: C0 and C1 controls but tab and newline, DEL, and the bidirectional embeddings, overrides and isolates.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: What can change a line's structure or make it active, wherever it is: code (backticks), links
#: and images (brackets), HTML and autolinks (``<``), entities, table cells, emphasis and
#: strikethrough, math (``$``), and the backslash itself. An underscore inside a word (``ring_shift``)
#: is never emphasis and stays as it is.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*{}\[\]<>|~&$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
#: What starts a block when it starts the text (a heading, a quote, a nested list).
_BLOCK_START = re.compile(r"^([#>+-]|\d+[.)])")


def clean(text: object) -> str:
    """``text`` without control characters; ``\\r\\n`` and lone ``\\r`` become newlines."""
    return _CONTROL.sub("", str(text).replace("\r\n", "\n").replace("\r", "\n"))


def one_line(text: object) -> str:
    """:func:`clean`, on one line (a table cell, a list item, a progress line)."""
    return " ".join(clean(text).split())


def md_inline(text: object) -> str:
    """Literal text inside a Markdown paragraph, heading, list item or table cell."""
    escaped = _MARKDOWN_PUNCTUATION.sub(r"\\\1", one_line(text))
    return _BLOCK_START.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], escaped)


def md_code(text: object, info: str = "text") -> list[str]:
    """A fenced code block whose fence is longer than any run of backticks in ``text``."""
    body = clean(text)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *body.split("\n"), fence]
