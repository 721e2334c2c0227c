"""Worker side: record every ``torch.distributed`` call graded code makes, and guard banned ones.

Tracing holds at the object, as bans do: when a worker starts, the code of every public
``torch.distributed`` function (and of the function it wraps, ``__wrapped__``) is swapped for a
trampoline (:func:`graders.comm.guard.swap_code`), so every route to it — the public name,
``distributed_c10d``, a closure that kept the original — goes through the recorder. While a
student call is active and graded code is behind a call (:mod:`graders.comm.callers`), the
trampoline:

* refuses the call with :class:`BannedCallError` if the exercise bans it (the attempt is
  recorded too, so catching the error does not hide it);
* appends an event ``(op, nbytes, peer, group, t_ns, site)`` to the task's trace;
* writes what it is about to block in to the rank's status board, which the driver reads
  when a task misses its deadline (the hang report).

A collective that calls another inside (``all_gather_object`` calls ``all_gather``) is
recorded once. The kit's own calls, and everything outside student calls, run the originals
untraced; :data:`REAL` holds them for grader code in the worker.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
import time
import weakref
from collections.abc import Callable
from typing import Any

import torch._C._distributed_c10d as _c10d
import torch.distributed as dist

from graders import catalog
from graders.comm import backend_hold
from graders.comm.calls import (
    P2P_RECV,
    P2P_SEND,
    OnTheWire,
    RecordedWork,
    buffer_bytes,
    describe,
    nbytes_of,
    payload_and_peer,
    tensors_of,
)
from graders.comm.doors import Doors
from graders.comm.group_agreement import (
    check_same_group_everywhere,
    local_synchronization,
    named_as_if_alone,
    requested_ranks,
)
from graders.comm.guard import ObjectBans, clone, swap_code
from graders.comm.hand_written import HandWrittenMath
from graders.comm.operator_bans import OperatorBans, operator_patterns
from graders.errors import BannedCallError

COLLECTIVES = tuple(sorted(catalog.COLLECTIVES))
_GATHERS = ("all_gather", "all_gather_into_tensor", "all_gather_single", "all_gather_coalesced")
WRAPPED = P2P_SEND + P2P_RECV + COLLECTIVES + ("batch_isend_irecv",)

#: The public ``torch.distributed`` functions (whose code the recorder swaps), by name: those this
#: torch has (an older one lacks ``all_gather_single`` and ``reduce_scatter_single``, say)
_PUBLIC: dict[str, Callable[..., Any]] = {
    name: getattr(dist, name) for name in WRAPPED if hasattr(dist, name)
}
#: ``ProcessGroup`` and the backends' classes, whose communicating methods graded code may not call
_PROCESS_GROUP_CLASSES = tuple(
    cls
    for cls in vars(_c10d).values()
    if isinstance(cls, type) and (issubclass(cls, (_c10d.ProcessGroup, _c10d.Backend)))
)
#: The functions that make and end process groups: not traced, but run from a kit frame, so that
#: the ProcessGroup methods they call themselves (``shutdown`` in ``destroy_process_group``) are
#: torch's doing, not graded code's (a graded program makes and ends its own process group)
LIFECYCLE = ("init_process_group", "destroy_process_group", "new_group", "new_subgroups")
#: Untraced copies of them, for the kit's own code in workers
REAL: dict[str, Callable[..., Any]] = {name: clone(fn) for name, fn in _PUBLIC.items()}
# Positional names for the arguments the recorder needs, per op.
_SIGNATURES = {name: inspect.signature(fn) for name, fn in _PUBLIC.items()}


class _Traced:
    """What a ``torch.distributed`` function runs (a constant in its swapped code)."""

    def __init__(self, recorder: Recorder, name: str, original: Callable) -> None:
        self.recorder, self.name, self.original = recorder, name, original

    def __call__(self, args: tuple, kwargs: dict):
        recorder = self.recorder
        if recorder.active and not recorder.depth and recorder.bans.graded_request(sys._getframe(2)):
            recorder.depth += 1
            try:
                bound = _SIGNATURES[self.name].bind(*args, **kwargs)
                bound.apply_defaults()
                return recorder._call(self.name, self.original, bound.arguments, args, kwargs)
            finally:
                recorder.depth -= 1
        return self.original(*args, **kwargs)


class _Lifecycle:
    """What a process-group lifecycle function runs: the original, from a kit frame. With
    ``recorder.keep_groups``, the groups it makes are kept alive as long as the process (see
    :attr:`Recorder.keep_groups`)."""

    def __init__(self, recorder: Recorder, name: str, original: Callable) -> None:
        self.recorder, self.name, self.original = recorder, name, original

    def __call__(self, args: tuple, kwargs: dict):
        recorder = self.recorder
        graded = recorder.active and recorder.bans.graded_request(sys._getframe(2))
        naming = contextlib.nullcontext()
        if graded and self.name == "new_group":
            asked = requested_ranks(args, kwargs)
            if asked is not None:
                check_same_group_everywhere(asked, REAL["all_gather_object"])
            elif local_synchronization(args, kwargs):
                naming = named_as_if_alone(recorder.made_groups)
        with naming:
            made = self.original(*args, **kwargs)
        if recorder.keep_groups and self.name != "destroy_process_group":
            default = dist.GroupMember.WORLD
            recorder.kept_groups += [g for g in (made, default) if g is not None]
        if graded and self.name in ("new_group", "new_subgroups"):
            found = made[1] if self.name == "new_subgroups" else [made]
            recorder.made_groups += [g for g in found if g is not None]
        return made


class Recorder:
    """Per-worker recorder; one instance lives in each worker process."""

    def __init__(self, status_fd: int | None = None) -> None:
        self.status_fd = status_fd
        self.events: list[tuple] = []
        self.banned: frozenset[str] = frozenset()
        self.exercise = ""
        self.active = False
        self.depth = 0  # inside a traced call: the calls it makes are its own
        self.site_root = ""
        self._group_ranks: dict[int, tuple[Callable[[], object], tuple[int, ...]]] = {}
        self._import_guard: _ImportGuard | None = None
        self.bans = ObjectBans(self)
        self.doors = Doors(self)
        self.on_the_wire = OnTheWire()
        self.on_gathered: Callable | None = None  # (output tensors, site) of every all-gather
        #: hand the backend aliases of graded code's buffers (graders.comm.backend_hold)
        self.release_buffers = False
        #: keep every process group graded code makes alive, as long as the process: a gloo group
        #: freed while one of its threads still ends a work (and wants the GIL its destructor,
        #: joining that thread, holds) deadlocks; a launched rank exits without freeing them
        self.keep_groups = False
        self.kept_groups: list = []
        #: the process groups graded code made (``new_group``), for the task to destroy
        self.made_groups: list = []
        #: the allowlist of a "by hand" contract, while its student block runs
        self.hand_written: HandWrittenMath | None = None
        #: kept doors graded code unbound in its block, bound again at its end: tampering, reported
        self.rebound: list[str] = []
        self._wait = self._waiting_function()

    # -- lifecycle -------------------------------------------------------------------------
    def install(self) -> None:
        """Trace every public ``torch.distributed`` function, by whatever route it is reached."""
        for name, public in _PUBLIC.items():
            chain = [public]
            while isinstance(getattr(chain[-1], "__wrapped__", None), type(public)):
                chain.append(chain[-1].__wrapped__)
            for fn in chain:
                fn.__code__ = swap_code(fn, _Traced(self, name, clone(fn)))
        for name in LIFECYCLE:
            fn = getattr(dist, name)
            fn.__code__ = swap_code(fn, _Lifecycle(self, name, clone(fn)))
        self.doors.install()
        self.bans.keep(self._close_native_doors)

    def _close_native_doors(self) -> None:
        """The doors every task closes to graded code, torch's collective operators and the
        process groups' own methods: bound once (``ObjectBans.keep``), checked at every task."""
        self.bans.ban_op_namespaces(catalog.C10D_OP_NAMESPACES, "c10d ops")
        self.bans.ban_methods(_PROCESS_GROUP_CLASSES, catalog.PROCESS_GROUP_METHODS, "process group")

    def begin(
        self,
        exercise: str,
        banned: frozenset[str],
        site_root: str,
        *,
        side_channels: bool = True,
        hand_written: bool = False,
    ) -> None:
        """Start recording a student call (the trace keeps growing until :meth:`take`).

        ``banned`` holds ``torch.distributed`` function names (``"all_reduce"``), refused by
        the trampolines, and dotted names of anything else (``"torch.optim.AdamW"``,
        ``"torch.nn.parallel.DistributedDataParallel"``, ``"package.*"``), refused at the object
        until :meth:`end`. ``side_channels`` closes files, sockets and torch's native
        collectives to graded code (an exercise that runs on several ranks). ``hand_written``
        admits only the operators a hand-written forward and backward may run
        (:class:`~graders.comm.hand_written.HandWrittenMath`, kept in :attr:`hand_written`).
        """
        self.exercise = exercise
        self.banned = banned
        self.site_root = site_root
        trees = tuple(sorted(name[:-2] for name in banned if name.endswith(".*")))
        loaded, modules_then = self.bans.ban_trees(trees), len(sys.modules)
        for name in sorted(banned):
            if "." in name and "::" not in name and not name.endswith(".*"):
                self.bans.ban(name)
        doors = dict(catalog.DOOR_OBJECTS)
        if side_channels:
            doors |= catalog.SIDE_CHANNEL_OBJECTS | catalog.NATIVE_COLLECTIVE_OBJECTS
        for name, door in sorted(doors.items()):
            self.bans.ban(name, label=door)
        self.bans.check_kept()  # unbound between tasks: not this task's doing, bound again quietly
        if trees:  # the kit's bans above may have loaded more of a tree: then look again
            self._ban_imports(trees, loaded if len(sys.modules) == modules_then else None)
        patterns = operator_patterns(banned)
        if patterns:  # left with the student block's modes (``TaskContext._guarded``)
            OperatorBans(self.bans, patterns).__enter__()
        # left likewise; read by the task after the block (``TaskContext.hand_written``)
        self.hand_written = HandWrittenMath(self.bans) if hand_written else None
        if self.hand_written is not None:
            self.hand_written.__enter__()
        self.doors.open(side_channels=side_channels)
        self.active = True

    def end(self) -> None:
        self.active = False
        self.depth = 0
        self.on_gathered = None
        self.release_buffers = False
        self.set_status("")
        self.doors.close()
        self.bans.lift()
        self.rebound += self.bans.check_kept()
        if self._import_guard is not None:
            if self._import_guard in sys.meta_path:
                sys.meta_path.remove(self._import_guard)
            sys.modules.update(self._import_guard.hidden)
            self._import_guard = None

    def _ban_imports(self, trees: tuple[str, ...], loaded: list[str] | None) -> None:
        """Refuse imports of the module trees ``trees`` (banned as ``"package.*"``) in student code.

        Modules of those trees that are already loaded (``loaded``: their names, or None to read
        ``sys.modules`` for them) are hidden from ``sys.modules`` until :meth:`end`, so an import
        statement cannot pick them up from the cache either.
        """
        guard = _ImportGuard(trees, self)
        names = loaded if loaded is not None else [name for name in sys.modules if guard.covers(name)]
        for name in names:
            guard.hidden[name] = sys.modules.pop(name)
        sys.meta_path.insert(0, guard)
        self._import_guard = guard

    def take(self) -> list[tuple]:
        events, self.events = self.events, []
        self._descriptions.clear()
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
            except OSError:  # a full disk must not end the rank: the hang report loses a line
                pass

    # -- a traced call ---------------------------------------------------------------------
    def _call(self, name, real, arguments, args, kwargs):
        site = self._student_site()
        if name in self.banned:
            self.events.append(("banned:" + name, 0, -1, (), time.perf_counter_ns(), site))
            raise BannedCallError(name, self.exercise, site)
        if name == "batch_isend_irecv":
            return self._batch(real, arguments["p2p_op_list"], site)
        group = self._ranks_of(arguments.get("group"))
        nbytes, peer = payload_and_peer(name, arguments, group)
        event = [name, nbytes, peer, group, time.perf_counter_ns(), site]
        self.events.append(event)
        blocking = name in ("send", "recv") or (name in COLLECTIVES and not arguments.get("async_op"))
        if blocking:
            self.set_status(describe(name, nbytes, peer, group, site))
        call, aliases = None, ()
        if self.release_buffers:  # the backend is handed aliases, cut when the work is done
            call, aliases = backend_hold.aliased_call(name, real, arguments, args, kwargs, REAL["all_gather"])
        try:
            result = call() if call is not None else real(*args, **kwargs)
        finally:
            if blocking:
                self.set_status("")
        asynchronous = name in ("isend", "irecv") or (arguments.get("async_op") and result is not None)
        if aliases and not asynchronous:
            backend_hold.cut(aliases)
        if name == "recv" and peer == -1 and isinstance(result, int):
            event[2] = result  # any-source receive: record who actually sent
        if self.on_gathered is not None and name in _GATHERS:
            output = arguments.get("output_tensor", arguments.get("tensor_list"))
            self.on_gathered(tensors_of(output), f"{name} at {site}")
        if asynchronous:
            work = RecordedWork(result, self._wait, aliases)
            self._descriptions[id(work)] = describe("wait:" + name, nbytes, peer, group, site)
            self.on_the_wire.launched(work, name, buffer_bytes(name, arguments), site)
            return work
        return result

    def _waiting_function(self) -> Callable:
        """``wait(handle, work, args, kwargs)`` for :class:`RecordedWork`: a closure, so that the
        handle graded code holds has no attribute leading to the recorder."""
        recorder = self
        recorder._descriptions = {}

        def wait(handle, work, args, kwargs):
            recorder.on_the_wire.landed(handle)
            description = recorder._descriptions.pop(id(handle), "")
            if work is None:
                return True
            if recorder.active:
                recorder.set_status(description)
            try:
                return work.wait(*args, **kwargs)
            finally:
                if recorder.active:
                    recorder.set_status("")

        return wait

    def _batch(self, real, ops, site):
        for op in ops:
            kind = getattr(op.op, "__name__", "")
            group = self._ranks_of(op.group)
            self.events.append((kind, nbytes_of(op.tensor), op.peer, group, time.perf_counter_ns(), site))
        works = real(ops)
        described = describe("wait:batch_isend_irecv", 0, -1, (), site)
        handles = [RecordedWork(w, self._wait) for w in works]
        for handle in handles:
            self._descriptions[id(handle)] = described
        return handles

    def _ranks_of(self, group) -> tuple[int, ...]:
        """The global ranks of ``group``, cached by the group object itself: a group destroyed after
        a task can leave its ``id`` to a new group, which must not inherit its ranks."""
        known = self._group_ranks.get(id(group))
        if known is not None and known[0]() is group:
            return known[1]
        pg = group if group is not None else dist.group.WORLD
        ranks = tuple(dist.get_process_group_ranks(pg))
        self._group_ranks[id(group)] = (_weak(group), ranks)
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


def _weak(group) -> Callable[[], object]:
    """A weak reference to ``group`` (``None``, the default group, is its own)."""
    return weakref.ref(group) if group is not None else lambda: None


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
