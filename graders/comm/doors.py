"""Worker side: the doors around the guard, closed to graded code by an audit hook.

An audit hook, once added, cannot be removed, and it sees what no rebinding can hide. While a
recorder is active, graded code may not (each is a banned call of the exercise, recorded in
the trace, with an integrity line; ``catalog.DOORS`` names them):

* read frames: ``sys._getframe``, ``inspect.currentframe``, ``logging.currentframe``, a
  traceback's ``tb_frame``, a generator's ``gi_frame`` (torch and the standard library may
  still read frames for themselves, for a log line, say: what counts is who receives them);
* walk the object graph (``gc.get_objects``), trace the interpreter (``sys.settrace``), build
  functions or code objects by hand, rewrite a function's ``__code__``, call native code
  (``ctypes``), or start a thread;
* import the grading kit, by any route: ``import``, ``importlib``, ``builtins.__import__``, or
  executing one of its files loaded by hand;
* in an exercise that runs on several ranks, move data behind the graders' back: write a file,
  map one into memory, or open a socket;
* send a signal to any process but its own: the grading processes (its parent, pid 1), its
  world's process group, every process (``-1``). The signal is never sent, and the report names
  it and its target.
"""

from __future__ import annotations

import _signal
import builtins
import importlib
import os
import posix
import signal
import sys
import types

from graders.catalog import DOORS
from graders.comm.callers import KIT_DIR, graded_asks, graded_request
from graders.comm.guard import WHY_DOORS
from graders.infra import torch_compat

#: audited events that only hand back frames: refused when graded code receives them
_FRAME_EVENTS = {"sys._getframe", "sys._current_frames"}
_FRAME_ATTRIBUTES = {"tb_frame", "gi_frame", "cr_frame", "ag_frame"}
#: audited events refused whenever graded code is behind them -> their name in catalog.DOORS
_ACTION_EVENTS = {
    "sys.settrace": "sys.settrace",
    "sys.setprofile": "sys.setprofile",
    "gc.get_objects": "gc.get_objects",
    "gc.get_referrers": "gc.get_referrers",
    "gc.get_referents": "gc.get_referents",
    "function.__new__": "function.__new__",
    "code.__new__": "code.__new__",
    "_thread.start_new_thread": "thread",
}
#: the doors that build code or put it into a function
_CODE_DOORS = ("code.__new__", "function.__code__")
#: audited events that move data between ranks behind the graders' back
_CHANNEL_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"}
#: audited events that send a signal: ``(pid, signal)``; ``os.killpg``'s target is a group
_SIGNAL_EVENTS = {"os.kill", "os.killpg"}
#: the functions of the pidfd route to a signal (``os.pidfd_open`` is ``posix.pidfd_open``)
_PIDFD = (
    (os, "pidfd_open"),
    (posix, "pidfd_open"),
    (signal, "pidfd_send_signal"),
    (_signal, "pidfd_send_signal"),
)
#: a refused signal's target, as the report names it (beside a pid > 1: a grading process)
SIGNAL_EVERY, SIGNAL_GROUP = -1, 0
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class Doors:
    """Refuses the doors above to graded code while a recorder is active (one per worker)."""

    def __init__(self, recorder) -> None:
        self.recorder = recorder
        self.side_channels = False  # closed in exercises that run on several ranks
        self._inside = False
        self._originals = (builtins.__import__, importlib.import_module, importlib.__import__)

    def install(self) -> None:
        """Add the audit hook (for the life of the process: audit hooks cannot be removed), and
        guard the pidfd route to a signal, which raises no audit event (for the life of the
        process too: a guard swapped in and out with every task would cost every example)."""
        sys.addaudithook(self._audit)
        for module, name in _PIDFD:
            original = getattr(module, name, None)
            if original is not None:
                setattr(module, name, self._guarded_pidfd(original))

    def _guarded_pidfd(self, original):
        def guarded(*args, **kwargs):
            if self.recorder.active and graded_request(sys._getframe(1), self.recorder.site_root):
                self.recorder.bans.refuse("signal", f"it {DOORS['signal']}; {WHY_DOORS}")
            return original(*args, **kwargs)

        return guarded

    def _audit(self, event: str, args: tuple) -> None:
        if not self.recorder.active or self._inside:
            return
        door, receiving = self._door(event, args)
        if door is None:
            return
        self._inside = True
        try:
            frame, root = sys._getframe(1), self.recorder.site_root  # who caused the event
            if door in _CODE_DOORS and torch_compat.torch_remakes_its_own_code(
                frame, _new_code_file(event, args)
            ):
                return  # torch renaming a wrapper of its own (@torch.no_grad() on a graded method)
            graded = graded_asks(frame, root) if receiving else graded_request(frame, root)
        finally:
            self._inside = False
        if graded:
            detail = _signal_detail(event, args) if door == "signal" else ()
            self.recorder.bans.refuse(door, f"it {DOORS[door]}; {WHY_DOORS}", detail=detail)

    def _door(self, event: str, args: tuple) -> tuple[str | None, bool]:
        """``(door, only when graded code receives it)`` for an audited event, or ``(None, _)``."""
        if event in _FRAME_EVENTS:
            return event, True
        if event == "object.__getattr__" and len(args) > 1 and args[1] in _FRAME_ATTRIBUTES:
            return "frame", True
        if event == "object.__getattr__" and len(args) > 1 and args[1] == "__code__":
            return "function.__code__", True  # the guard's swapped code holds its refusal
        if event in _ACTION_EVENTS:
            return _ACTION_EVENTS[event], False
        if event in _SIGNAL_EVENTS and _signal_detail(event, args):
            return "signal", False
        if event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__":
            return "function.__code__", False
        if event.startswith("ctypes."):
            return "ctypes", False
        if event == "exec" and args and str(getattr(args[0], "co_filename", "")).startswith(KIT_DIR):
            return "graders.*", False
        if self.side_channels and (event in _CHANNEL_EVENTS or (event == "open" and _writes(args))):
            return "side channel", False
        if self.side_channels and event == "mmap.__new__" and args and args[0] != -1:  # a file, shared
            return "side channel", False
        return None, False

    # -- the kit is not importable from graded code --------------------------------------------
    def open(self, *, side_channels: bool) -> None:
        """While graded code runs: importing the kit from graded code is refused."""
        self.side_channels = side_channels
        builtins.__import__ = self._guarded_import
        importlib.import_module = self._guarded_import_module
        importlib.__import__ = self._guarded_import

    def close(self) -> None:
        builtins.__import__, importlib.import_module, importlib.__import__ = self._originals

    def _guarded_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and _is_kit(name) and self._graded_importer(globals):
            self._refuse_kit(name)
        return self._originals[0](name, globals, locals, fromlist, level)

    def _guarded_import_module(self, name, package=None):
        if not name.startswith(".") and _is_kit(name) and self._graded_importer(None):
            self._refuse_kit(name)
        return self._originals[1](name, package)

    def _graded_importer(self, globals) -> bool:
        """Whether the import comes from graded code: a graded module's globals, or graded code
        behind the frame asking (``builtins.__import__(name)`` passes no globals; a library
        function such as ``pkgutil.resolve_name`` imports by name for its caller)."""
        name = str((globals or {}).get("__name__", ""))
        if name == "dtlab_impl" or name.startswith("dtlab_impl."):
            return True
        return graded_request(sys._getframe(2), self.recorder.site_root)

    def _refuse_kit(self, name: str) -> None:
        self.recorder.bans.refuse("graders.*", f"it {DOORS['graders.*']} ({name})")


def _signal_detail(event: str, args: tuple) -> tuple[int, ...]:
    """``(signal, target)`` of an audited ``os.kill`` / ``os.killpg`` aimed at another process
    (target: a pid, :data:`SIGNAL_EVERY` or :data:`SIGNAL_GROUP`); ``()`` for the process itself."""
    if len(args) < 2 or not isinstance(args[0], int) or not isinstance(args[1], int):
        return ()
    target, number = args
    if event == "os.kill" and target == os.getpid():
        return ()
    if event == "os.killpg" or target == 0 or target < -1:
        return (number, SIGNAL_GROUP)
    return (number, target)


def _new_code_file(event: str, args: tuple) -> str:
    """The ``co_filename`` of the code an event builds (``code.__new__``) or puts into a function
    (``object.__setattr__`` of ``__code__``); empty when it is no code."""
    if event == "code.__new__" and len(args) > 1:
        return str(args[1])
    value = args[2] if len(args) > 2 else None
    return value.co_filename if isinstance(value, types.CodeType) else ""


def _writes(args: tuple) -> bool:
    """Whether an audited ``open(path, mode, flags)`` opens for writing."""
    mode = args[1] if len(args) > 1 else "r"
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


#: the kit's packages graded code may not import: the graders, and the reference solutions
_KIT_PACKAGES = ("graders", "solutions")


def _is_kit(name: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in _KIT_PACKAGES)
