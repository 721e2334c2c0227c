"""Known gloo / c10d failures, said as what the student's code did, with a hint (``--lang``).

A worker's exception reaches the student as ``rank 1 raised RuntimeError: [enforce fail at
pair.cc:801] ... Pair is not connected``. :func:`explain` recognises the library texts below
(each provoked for real in a gloo world by ``tests/world/test_gloo_errors.py``, torch 2.13) and
:func:`said` says what happened and what to do, in the student's language. Two misuses never
raise: a send and a recv with different tags wait forever, and a peer rank that does not
exist is waited on forever; :func:`hang_diagnosis` names them in a hang report.
"""

from __future__ import annotations

import re

from graders.words.text import Text, each_lang
from graders.words.vocabulary import t

#: (key, pattern) in the order tried; the words are ``word:gloo:<key>`` and
#: ``word:gloo:<key>:hint`` in the kit's catalogue
KNOWN: tuple[tuple[str, re.Pattern], ...] = (
    # torch's own check on send / isend to dst == rank (ValueError)
    ("self", re.compile(r"(destination|source) rank should not be the same as the rank of the current")),
    # gloo: recv / irecv from src == rank, or an isend to itself, uses the pair to itself, never connected
    ("self", re.compile(r"Pair is not connected \([^)]*<--> \[none\]\)")),
    # c10d: a peer that is not a member of the group the call passed
    ("not in group", re.compile(r"Global rank (?P<peer>-?\d+) is not part of group")),
)
#: what a rank reports when a peer died or left under it: a knock-on, not the cause
_PEER_GONE = re.compile(
    r"Connection (closed|reset) by peer|Broken pipe|Socket Timeout|Timed out waiting", re.I
)
_GROUP_OBJECT = re.compile(r"group <torch\.distributed[\w.]*\.ProcessGroup object at 0x[0-9a-f]+>")


def peer_gone(message: str) -> bool:
    """Whether ``message`` is a rank's knock-on error: the peer it talked to died or left."""
    return bool(_PEER_GONE.search(message or ""))


def explain(message: str) -> tuple[str, dict[str, str]] | None:
    """(key, the values the words name) for a known library error text, else None."""
    for key, pattern in KNOWN:
        match = pattern.search(message or "")
        if match:
            return key, {k: v for k, v in match.groupdict().items() if v is not None}
    return None


def said(message: str) -> tuple[Text | str, Text | str]:
    """What the student's code did and a hint, in every language, for a known library error text;
    ``("", "")`` for one the kit does not know."""
    found = explain(message)
    if found is None:
        return "", ""
    key, values = found
    what = each_lang(lambda lang: f"{t('gloo:what happened', lang)}: {t('gloo:' + key, lang, **values)}")
    return what, each_lang(lambda lang: t("gloo:" + key + ":hint", lang, **values))


def clean(message: str) -> str:
    """The library text without what means nothing to a student (a group object's address)."""
    return _GROUP_OBJECT.sub("the group", message)


def hang_diagnosis(blocked: dict[int, dict], world: set[int], lang: str = "en") -> str:
    """A sentence for the stuck ranks that only a misuse explains, or "":

    * a rank blocked on a peer that is not a rank of the world;
    * a rank A blocked in send to B while B is blocked in recv from A: gloo pairs them unless
      their tags differ.
    """
    for rank, status in sorted(blocked.items()):
        peer = status["peer"]
        if ("send" in status["op"] or "recv" in status["op"]) and peer >= 0 and peer not in world:
            return t("gloo:no such rank", lang, rank=rank, peer=peer, size=len(world), last=max(world))
    for rank, status in sorted(blocked.items()):
        other = blocked.get(status["peer"])
        if status["op"] == "send" and other is not None and "recv" in other["op"] and other["peer"] == rank:
            return t("gloo:tags", lang, src=rank, dst=status["peer"])
    return ""
