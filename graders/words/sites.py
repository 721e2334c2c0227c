"""Where in the student's code something happened, said in every language.

The recorders keep a call site as plain data, ``"collectives.py:37 in ring_all_reduce"`` (it
crosses processes and JSON as it is); :func:`site_said` turns it into words at render time.
"""

from __future__ import annotations

import re

from graders.words.messages import say
from graders.words.text import Text

#: a site as the recorders and :func:`graders.world.reports.student_frames` write it
SITE = re.compile(r"(?P<file>[^\s:][^:]*):(?P<line>\d+) in (?P<function>\S+)")


def site_said(site: str) -> Text | str:
    """``site`` in every language; a site of another shape stays as it is. The English is
    ``site`` itself, byte for byte."""
    match = SITE.fullmatch(site)
    if not match:
        return site
    # the line number is a name here, not a quantity: no locale grouping (``1234``, not ``1.234``)
    return say("site:file line function", file=match["file"], line=match["line"], function=match["function"])
