"""Worker side: record every ``torch.distributed`` call made by student code, and guard banned ones.

The recorder replaces the public entry points of the ``torch.distributed`` namespace with thin
wrappers, once, when a worker starts. While a student call is active each wrapper:

* refuses the call with :class:`BannedCallError` if the exercise bans it (the attempt is
  recorded too, so catching the error does not hide it);
* appends an event ``(op, nbytes, peer, group, t_ns, site)`` to the task's trace;
* writes what it is about to block in to the rank's status board, which the driver reads
  when a task misses its deadline (the hang report).

The original functions stay reachable as :data:`REAL` for grader code running in the worker.
Outside student calls the wrappers pass straight through.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

from graders import catalog
from graders.comm.guard import Doors, ObjectBans
from graders.errors import BannedCallError

P2P_SEND = ("send", "isend")
P2P_RECV = ("recv", "irecv")
COLLECTIVES = tuple(sorted(catalog.COLLECTIVES))
WRAPPED = P2P_SEND + P2P_RECV + COLLECTIVES + ("batch_isend_irecv",)

#: The unwrapped ``torch.distributed`` functions, for the kit's own code in workers.
REAL: dict[str, Callable[..., Any]] = {name: getattr(dist, name) for name in WRAPPED}
_REAL_P2POP = dist.P2POp

# Positional names for the arguments the recorder needs, per op.
_SIGNATURES = {name: inspect.signature(fn) for name, fn in REAL.items()}


class Recorder:
    """Per-worker recorder; one instance lives in each worker process."""

    def __init__(self, status_fd: int | None = None) -> None:
        self.status_fd = status_fd
        self.events: list[tuple] = []
        self.banned: frozenset[str] = frozenset()
        self.exercise = ""
        self.active = False
        self.site_root = ""
        self._group_ranks: dict[int, tuple[int, ...]] = {}
        self._import_guard: _ImportGuard | None = None
        self.bans = ObjectBans(self)
        self.doors = Doors(self)
        self.on_the_wire = OnTheWire()

    # -- lifecycle -------------------------------------------------------------------------
    def install(self) -> None:
        for name in WRAPPED:
            setattr(dist, name, self._wrap(name))
        self.doors.install()
        recorder = self

        class P2POp(_REAL_P2POP):
            """``dist.P2POp`` that accepts the recorder's isend/irecv wrappers."""

            def __new__(cls, op, *args, **kwargs):
                return _REAL_P2POP.__new__(cls, recorder._unwrap(op), *args, **kwargs)

            def __init__(self, op, *args, **kwargs):
                super().__init__(recorder._unwrap(op), *args, **kwargs)

        dist.P2POp = P2POp

    def begin(self, exercise: str, banned: frozenset[str], site_root: str) -> None:
        """Start recording a student call (the trace keeps growing until :meth:`take`).

        ``banned`` holds ``torch.distributed`` function names (``"all_reduce"``) and dotted
        names of anything else (``"torch.optim.AdamW"``,
        ``"torch.nn.parallel.DistributedDataParallel"``), which are replaced by a refusing
        stand-in until :meth:`end`.
        """
        self.exercise = exercise
        self.banned = banned
        self.site_root = site_root
        for name in sorted(banned | catalog.DOOR_OBJECTS):
            if name.endswith(".*"):
                self.bans.ban_tree(name[:-2])
            elif "." in name:
                self.bans.ban(name)
            elif name in REAL:  # behind the recorder's own wrapper too: distributed_c10d, __wrapped__
                self.bans.ban(name, REAL[name])
        trees = tuple(name[:-2] for name in banned if name.endswith(".*"))
        if trees:
            self._ban_imports(trees)
        self.doors.open()
        self.active = True

    def end(self) -> None:
        self.active = False
        self.set_status("")
        self.doors.close()
        self.bans.lift()
        if self._import_guard is not None:
            if self._import_guard in sys.meta_path:
                sys.meta_path.remove(self._import_guard)
            sys.modules.update(self._import_guard.hidden)
            self._import_guard = None

    def _ban_imports(self, trees: tuple[str, ...]) -> None:
        """Refuse imports of the module trees ``trees`` (banned as ``"package.*"``) in student code.

        Modules of those trees that are already loaded are hidden from ``sys.modules`` until
        :meth:`end`, so an import statement cannot pick them up from the cache either.
        """
        guard = _ImportGuard(trees, self)
        for name in [name for name in sys.modules if guard.covers(name)]:
            guard.hidden[name] = sys.modules.pop(name)
        sys.meta_path.insert(0, guard)
        self._import_guard = guard

    def take(self) -> list[tuple]:
        events, self.events = self.events, []
        return events

    def mark(self, label: str) -> None:
        """Insert a marker event (for example ``backward_end``) into the trace."""
        self.events.append(("mark:" + label, 0, -1, (), time.perf_counter_ns(), ""))

    def ready(self, name: str) -> None:
        """Insert a gradient-ready event: the gradient of parameter ``name`` is complete."""
        self.events.append(("ready:" + name, 0, -1, (), time.perf_counter_ns(), ""))

    def set_status(self, text: str) -> None:
        if self.status_fd is not None:
            data = text.encode("utf-8", "replace")[:1000]
            try:
                os.pwrite(self.status_fd, data.ljust(1024, b" "), 0)
            except OSError:  # a full disk: the board is diagnostic only and must not end the rank
                pass

    # -- wrapping --------------------------------------------------------------------------
    def _unwrap(self, fn):
        return REAL.get(getattr(fn, "__dtlab_op__", ""), fn)

    def _wrap(self, name: str) -> Callable[..., Any]:
        real = REAL[name]
        signature = _SIGNATURES[name]
        recorder = self

        def wrapper(*args, **kwargs):
            if not recorder.active:
                return real(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return recorder._call(name, real, bound.arguments, args, kwargs)

        wrapper.__name__ = name
        wrapper.__qualname__ = name
        wrapper.__doc__ = real.__doc__
        wrapper.__dtlab_op__ = name  # no __wrapped__: the original is not one attribute away
        return wrapper

    def _call(self, name, real, arguments, args, kwargs):
        site = self._student_site()
        if name in self.banned:
            self.events.append(("banned:" + name, 0, -1, (), time.perf_counter_ns(), site))
            raise BannedCallError(name, self.exercise, site)
        if name == "batch_isend_irecv":
            return self._batch(real, arguments["p2p_op_list"], site)
        group = self._ranks_of(arguments.get("group"))
        nbytes, peer = _payload_and_peer(name, arguments, group)
        event = [name, nbytes, peer, group, time.perf_counter_ns(), site]
        self.events.append(event)
        blocking = name in ("send", "recv") or (name in COLLECTIVES and not arguments.get("async_op"))
        if blocking:
            self.set_status(_describe(name, nbytes, peer, group, site))
        try:
            result = real(*args, **kwargs)
        finally:
            if blocking:
                self.set_status("")
        if name == "recv" and peer == -1 and isinstance(result, int):
            event[2] = result  # any-source receive: record who actually sent
        if name in ("isend", "irecv") or (arguments.get("async_op") and result is not None):
            work = RecordedWork(result, self, _describe("wait:" + name, nbytes, peer, group, site))
            self.on_the_wire.launched(work, name, _buffer_bytes(name, arguments), site)
            return work
        return result

    def _batch(self, real, ops, site):
        for op in ops:
            kind = getattr(op.op, "__name__", "")
            group = self._ranks_of(op.group)
            self.events.append((kind, _nbytes(op.tensor), op.peer, group, time.perf_counter_ns(), site))
        works = real(ops)
        return [RecordedWork(w, self, _describe("wait:batch_isend_irecv", 0, -1, (), site)) for w in works]

    def _ranks_of(self, group) -> tuple[int, ...]:
        key = id(group)
        ranks = self._group_ranks.get(key)
        if ranks is None:
            pg = group if group is not None else dist.group.WORLD
            ranks = tuple(dist.get_process_group_ranks(pg))
            self._group_ranks[key] = ranks
        return ranks

    def _student_site(self) -> str:
        """``file:line in function`` of the innermost student frame calling into dist."""
        frame = sys._getframe(2)
        fallback = ""
        while frame is not None:
            filename = frame.f_code.co_filename
            if self.site_root and filename.startswith(self.site_root):
                return f"{os.path.basename(filename)}:{frame.f_lineno} in {frame.f_code.co_name}"
            if not fallback and "torch" not in filename and "graders" not in filename:
                fallback = f"{os.path.basename(filename)}:{frame.f_lineno} in {frame.f_code.co_name}"
            frame = frame.f_back
        return fallback


class _ImportGuard:
    """A ``sys.meta_path`` finder that refuses to import banned module trees."""

    def __init__(self, trees: tuple[str, ...], recorder: Recorder) -> None:
        self.trees = trees
        self._prefixes = tuple(tree + "." for tree in trees)
        self.recorder = recorder
        self.hidden: dict[str, object] = {}

    def covers(self, name: str) -> bool:
        return name in self.trees or name.startswith(self._prefixes)

    def find_spec(self, fullname, path=None, target=None):
        if not self.covers(fullname):
            return None
        site = self.recorder._student_site()
        banned = fullname + ".*"
        self.recorder.events.append(("banned:" + banned, 0, -1, (), time.perf_counter_ns(), site))
        raise BannedCallError(banned, self.recorder.exercise, site)


class OnTheWire:
    """The asynchronous collectives launched and not yet waited for, and the most buffer bytes
    they held at once (inputs and outputs): what "one bucket on the wire" promises."""

    def __init__(self) -> None:
        self.pending: dict[int, int] = {}
        self.most = 0
        self.where = ""

    def launched(self, work, op: str, nbytes: int, site: str) -> None:
        self.pending[id(work)] = nbytes
        now = sum(self.pending.values())
        if now > self.most:
            self.most, self.where = now, f"{len(self.pending)} {op} in flight at {site}"

    def landed(self, work) -> None:
        self.pending.pop(id(work), None)

    def take(self) -> dict:
        """The most since the last take; counting goes on from what is pending now."""
        most, where = self.most, self.where
        self.most, self.where = sum(self.pending.values()), ""
        return {"bytes": most, "where": where}


class RecordedWork:
    """Wraps an async ``Work`` so that waiting on it shows up in the hang report."""

    def __init__(self, work, recorder: Recorder, description: str) -> None:
        self._work = work
        self._recorder = recorder
        self._description = description

    def wait(self, *args, **kwargs):
        self._recorder.on_the_wire.landed(self)
        if self._work is None:
            return True
        if self._recorder.active:
            self._recorder.set_status(self._description)
        try:
            return self._work.wait(*args, **kwargs)
        finally:
            if self._recorder.active:
                self._recorder.set_status("")

    def __getattr__(self, name):
        return getattr(self._work, name)


def _nbytes(value) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, list | tuple):
        return sum(_nbytes(v) for v in value)
    return 0


def _global_peer(arguments, group: tuple[int, ...], key: str, group_key: str) -> int:
    peer = arguments.get(key)
    if peer is not None:
        return int(peer)
    group_peer = arguments.get(group_key)
    if group_peer is not None and 0 <= group_peer < len(group):
        return group[group_peer]
    return -1


def _buffer_bytes(name: str, arguments: dict) -> int:
    """Bytes of every tensor an asynchronous collective holds until it is waited for."""
    return sum(
        _nbytes(value) for value in arguments.values() if isinstance(value, torch.Tensor | list | tuple)
    )


def _payload_and_peer(name: str, arguments: dict, group: tuple[int, ...]) -> tuple[int, int]:
    """Bytes this rank hands to the call, and the peer or root rank (-1 when none)."""
    if name in P2P_SEND:
        return _nbytes(arguments["tensor"]), _global_peer(arguments, group, "dst", "group_dst")
    if name in P2P_RECV:
        return _nbytes(arguments["tensor"]), _global_peer(arguments, group, "src", "group_src")
    if name in ("broadcast", "scatter"):
        payload = arguments.get("scatter_list") if name == "scatter" else arguments["tensor"]
        return _nbytes(payload), _global_peer(arguments, group, "src", "group_src")
    if name in ("reduce", "gather"):
        return _nbytes(arguments["tensor"]), _global_peer(arguments, group, "dst", "group_dst")
    for key in ("input", "input_tensor", "tensor", "input_list", "input_tensor_list", "tensors"):
        if key in arguments:
            return _nbytes(arguments[key]), -1
    return 0, -1


def _describe(name: str, nbytes: int, peer: int, group: tuple[int, ...], site: str) -> str:
    """The status-board line for a blocking call: JSON ``[op, peer, nbytes, group, site]``."""
    return json.dumps([name, peer, nbytes, list(group), site])
