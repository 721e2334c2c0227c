"""Submission times and due dates as aware datetimes, and the ``late`` verdict they give.

Times are compared as instants, never as strings: ``2026-03-01T20:00:00Z`` is four hours after
``2026-03-01T23:59:00+07:00``. A due date must say its time zone. nbgrader's ``timestamp.txt``
(``2026-03-02 09:15:00.000000 UTC``: a zone name, an IANA zone or an offset after the time) is
read as nbgrader reads it, a time without a zone being UTC. Only nbgrader's layout records when
a student submitted; for folders and zips there is no submission time unless the teacher asks
for the files' modification times (``dtlab grade --timestamps-from-mtime``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from graders.words.messages import say

_NBGRADER = re.compile(r"^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?)(?:\s*(\S+))?$")
_OFFSET = re.compile(r"^([+-])(\d\d):?(\d\d)?$")
_UTC_NAMES = {"UTC", "GMT", "Z", "UT"}


def _zone(name: str) -> timezone | ZoneInfo:
    if name.upper() in _UTC_NAMES:
        return UTC
    offset = _OFFSET.match(name)
    if offset:
        sign, hours, minutes = offset.groups()
        delta = timedelta(hours=int(hours), minutes=int(minutes or 0))
        return timezone(-delta if sign == "-" else delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(say("time:unknown zone", zone=name)) from None


def parse(text: str) -> datetime:
    """An aware datetime from ISO 8601 (``...T23:59:00+07:00``, ``...Z``); a naive time is refused."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(say("time:not iso", text=text)) from None
    if moment.tzinfo is None:
        raise ValueError(say("time:no zone", text=text, moment=moment.isoformat()))
    return moment


def nbgrader_time(text: str) -> datetime:
    """An aware datetime from nbgrader's ``timestamp.txt``; raises :class:`ValueError`."""
    match = _NBGRADER.match(text.strip())
    if not match:
        return parse(text)
    clock, zone = match.groups()
    moment = datetime.fromisoformat(clock.replace(" ", "T"))
    return moment.replace(tzinfo=_zone(zone) if zone else UTC)


def from_epoch(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def late(timestamp: str, duedate: str) -> str:
    """``yes`` / ``no`` when both times are known, ``""`` (no verdict) otherwise."""
    if not timestamp or not duedate:
        return ""
    return "yes" if parse(timestamp) > parse(duedate) else "no"
