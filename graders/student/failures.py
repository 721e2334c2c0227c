"""A failed part's message, cut into what a student reads first: what was expected and what was
seen, on which rank, the smallest failing example, and the hint.

The graders already write all of it into their messages (``graders.judge.checks.fail`` ends a message
with ``example: <case>`` and ``GradingFailure`` with ``hint: ...``; a worker's exception adds
the rank and its traceback); this only finds the pieces again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graders.words.vocabulary import LANGS, t

_RANK = re.compile(r"\branks? (\d+(?:, \d+)*)\b")  # the same word in Vietnamese
_EXAMPLES = tuple(f"{t('example', lang)}: " for lang in LANGS)  # "example: ", "ví dụ: "
_HINTS = tuple(f"{t('hint', lang)}: " for lang in LANGS)  # "hint: ", "gợi ý: "


@dataclass
class Failure:
    body: list[str] = field(default_factory=list)  # what went wrong: expected vs got, a report
    example: str = ""  # the case's repr: a one-line reproduction
    hints: list[str] = field(default_factory=list)
    rank: str = ""  # "1", or "0, 2" for several ranks; "" when the message names none


def parse(message: str, exercise: str = "") -> Failure:
    """The pieces of ``message``; a leading ``"<exercise>: "`` (a worker's exception) is dropped."""
    found = Failure()
    for line in message.strip().splitlines():
        if line.startswith(_EXAMPLES):
            found.example = line.split(": ", 1)[1].strip()
        elif line.startswith(_HINTS):  # one line each (a crash report goes on after its hint)
            found.hints.append(line.split(": ", 1)[1].strip())
        else:
            found.body.append(line.rstrip())
    if exercise and found.body and found.body[0].startswith(f"{exercise}: "):
        found.body[0] = found.body[0][len(exercise) + 2 :]
    while found.body and not found.body[-1]:
        found.body.pop()
    rank = _RANK.search("\n".join(found.body))
    found.rank = rank.group(1) if rank else ""
    return found
