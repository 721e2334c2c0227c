"""Which layers of the sandbox this machine allows (:class:`Isolation`), found by trying them.

:func:`probe` tries each layer in forked children and must run in a fresh, single-threaded
process: :func:`detect` runs it once per process as ``python -P -m graders.grading.sandbox
--probe`` and caches the answer. :func:`require_safe` refuses to let graded code run as root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass, field

from graders import config
from graders.grading.sandbox.cgroup import cgroup_version
from graders.grading.sandbox.rlimits import Limits
from graders.grading.sandbox.root import system_binds
from graders.grading.sandbox.syscalls import (
    MS_PRIVATE,
    MS_REC,
    NEW_NAMESPACES,
    SYS_PIVOT_ROOT,
    loopback_up,
    mount,
    unshare,
)
from graders.words.messages import say
from graders.words.text import Text, join


@dataclass(frozen=True)
class Note:
    """A probe note as data (a kit word ``"sandbox:note:..."`` and its values): it crosses the
    probe's JSON as it is and is said in the reader's language when printed."""

    key: str
    values: tuple[tuple[str, str], ...] = ()

    def said(self) -> Text:
        return say(self.key, **dict(self.values))

    @classmethod
    def from_dict(cls, data: dict) -> Note:
        return say_later(data["key"], **dict(data.get("values", ())))


def say_later(key: str, **values: object) -> Note:
    """:func:`~graders.words.messages.say` kept as data until printed (values as text: a uid is
    no quantity to write with a thousands separator)."""
    return Note(key, tuple((name, str(value)) for name, value in values.items()))


@dataclass(frozen=True)
class Isolation:
    """Which layers this machine allows (see :mod:`graders.grading.sandbox`)."""

    namespaces: bool = False
    pivot_root: bool = False
    cgroup: str = ""  # "v2", "v1" or "" (none)
    drop_uid: bool = False
    notes: tuple[Note, ...] = field(default=())

    def describe(self) -> Text:
        """The layers, then the probe's notes, in every language."""
        layers: list[Text | str] = [say("sandbox:layer:process tree"), "rlimits"]
        if self.cgroup:
            layers.append(say("sandbox:layer:cgroup", version=self.cgroup))
        if self.namespaces:
            root = say("sandbox:layer:whitelisted root") if self.pivot_root else ""
            layers.append(say("sandbox:layer:namespaces") + root)
        if self.drop_uid:
            layers.append(say("sandbox:layer:own uid"))
        text = join(", ", layers)
        return text + ("; " + join("; ", [n.said() for n in self.notes]) if self.notes else "")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Isolation:
        return cls(**{**data, "notes": tuple(Note.from_dict(n) for n in data.get("notes", ()))})


def probe() -> Isolation:
    """Which layers work here (call it in a fresh, single-threaded process)."""
    notes = []
    as_root = os.geteuid() == 0
    off = config.sandbox_mode() == "off"
    cgroup, reasons = ("", "") if off else cgroup_version(Limits())
    if off:
        notes.append(say_later("sandbox:note:cgroup off"))
    elif not cgroup:
        notes.append(say_later("sandbox:note:no cgroup", reasons=reasons))
    namespaces = pivot = drop_uid = False
    if as_root:
        namespaces, pivot, error = (False, False, "") if off else _probe_namespaces()
        if off:
            notes.append(say_later("sandbox:note:namespaces off"))
        elif error:
            notes.append(say_later("sandbox:note:no namespaces", error=error))
        drop_uid = pivot or _uid_can_run_python(config.sandbox_uid())
        if not drop_uid:
            notes.append(say_later("sandbox:note:uid cannot run python", uid=config.sandbox_uid()))
    else:
        notes.append(say_later("sandbox:note:not root"))
    return Isolation(namespaces, pivot, cgroup, drop_uid, tuple(notes))


def _uid_can_run_python(uid: int) -> bool:
    """Whether ``uid`` can read everything the driver may still import (without a new root)."""
    paths = [path for path, _ in system_binds() if os.path.isdir(path)]  # listed while still root
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            ok = all(os.access(path, os.R_OK | os.X_OK) for path in paths)
            os._exit(0 if ok else 1)
        except BaseException:  # noqa: BLE001 - whatever happens, the child must not return
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _probe_namespaces() -> tuple[bool, bool, str]:
    """Whether new namespaces work, and a new root; else why not (the error)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        result = {"ns": False, "pivot": False, "why": ""}
        try:
            unshare(NEW_NAMESPACES)
            mount(None, "/", None, MS_REC | MS_PRIVATE)
            loopback_up()
            result["ns"] = True
            result["pivot"] = SYS_PIVOT_ROOT is not None
        except OSError as exc:
            result["why"] = str(exc)
        os.write(write, json.dumps(result).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    result = json.loads(data or b"{}")
    return result.get("ns", False), result.get("pivot", False), result.get("why", "")


_PROBED: Isolation | None = None


class UnsafeIsolation(RuntimeError):
    """Graded code would run as root: refused unless ``DTLAB_SANDBOX=unsafe``."""


def require_safe(isolation: Isolation) -> None:
    if os.geteuid() == 0 and not isolation.drop_uid and config.sandbox_mode() != "unsafe":
        raise UnsafeIsolation(say("sandbox:as root", isolation=isolation.describe()))


def detect() -> Isolation:
    """:func:`probe`, run once per process in a fresh interpreter.

    ``DTLAB_SANDBOX=off`` turns the namespaces and the cgroup off (the uid switch stays: graded
    code never runs as root unless ``DTLAB_SANDBOX=unsafe``).
    """
    global _PROBED
    if _PROBED is None:
        if config.sandbox_mode() == "unsafe":
            _PROBED = Isolation(notes=(say_later("sandbox:note:unsafe"),))
        else:
            out = subprocess.run(
                [sys.executable, "-P", "-m", "graders.grading.sandbox", "--probe"],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            try:
                _PROBED = Isolation.from_dict(json.loads(out.stdout))
            except (ValueError, TypeError):
                _PROBED = Isolation(
                    notes=(say_later("sandbox:note:probe failed", error=out.stderr.strip()[-300:]),)
                )
    return _PROBED
