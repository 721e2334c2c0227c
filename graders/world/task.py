"""Grader tasks: functions that run inside worker processes, referenced by name from the driver.

A task is a plain function ``fn(ctx, case) -> plain data`` decorated with
``@task("chN.exercise")``. The exercise's catalog entry says which file is graded and what is
banned. The driver sends only the task's dotted name and the case; the worker imports the
task's module (kit code), builds a :class:`TaskContext`, and runs it. Student code is reached
only through ``ctx.student_code()``, inside which the recorder traces and guards
``torch.distributed``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import torch
import torch.distributed as dist

from graders import catalog
from graders.catalog import Exercise
from graders.infra import torch_compat


@dataclass(frozen=True)
class TaskSpec:
    exercise: str
    module: str
    symbol: str
    banned: frozenset[str] = field(default_factory=frozenset)
    ref: str = ""
    measured_memory: bool = False
    multi_rank: bool = True
    launcher: str = ""  # "torchrun": the task runs in a world torchrun's launcher starts for it
    scan_allows: frozenset[str] = field(default_factory=frozenset)
    #: its outcome is kept for the same case and graded files, and given again to the exercise's
    #: other parts (a whole training run, judged by several parts)
    reuse: bool = False
    #: its deadline is this many task deadlines (a whole training run on up to 8 processes)
    deadline_factor: float = 1.0
    #: its contract says "by hand" (``Exercise.hand_written``)
    hand_written: bool = False


def _mode_depths() -> tuple[int, int]:
    """How many dispatch and torch-function modes are entered (the kit's own, around the block)."""
    return torch_compat.mode_depths()


def _leave_modes_at(depths: tuple[int, int]) -> None:
    """Pop the modes graded code entered and left behind (its exit refused, or never reached),
    so that the next task in this worker starts with the kit's modes only."""
    dispatch, function = depths
    while torch_compat.mode_depths()[0] > dispatch:
        torch_compat.pop_dispatch_mode()
    while torch_compat.mode_depths()[1] > function:
        torch_compat.pop_function_mode()


def task(exercise: str | Exercise, *, reuse: bool = False, deadline_factor: float = 1.0):
    """Declare a worker task for ``exercise``: a catalog id, or an :class:`Exercise` of the kit's
    own tests (the world's probes), which the catalog does not list. ``reuse``: the task is
    deterministic and costly, and its outcome is given again for the same case and graded files
    (``WorldPool._reused``). ``deadline_factor``: its deadline is that many task deadlines."""
    entry = catalog.exercise(exercise) if isinstance(exercise, str) else exercise

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        ref = f"{fn.__module__}:{fn.__qualname__}"
        fn.dtlab_task = TaskSpec(
            entry.id,
            entry.module,
            entry.symbol,
            frozenset(entry.banned),
            ref,
            entry.measured_memory,
            entry.multi_rank,
            entry.launcher,
            frozenset(entry.scan_allows),
            reuse,
            deadline_factor,
            entry.hand_written,
        )
        return fn

    return decorate


def on_device(value, device: torch.device):
    """``value`` with every tensor in it on ``device`` (see :meth:`TaskContext.to_device`)."""
    if isinstance(value, torch.Tensor):
        if value.device == device:
            return value
        moved = value.detach().to(device)
        return moved.requires_grad_(value.requires_grad) if value.is_leaf else moved
    if isinstance(value, torch.nn.Module):
        return value.to(device)
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        return type(value)(on_device(item, device) for item in value)
    if isinstance(value, dict):
        return {key: on_device(item, device) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            f.name: on_device(getattr(value, f.name), device) for f in dataclasses.fields(value) if f.init
        }
        return dataclasses.replace(value, **fields) if fields else value
    return value


def spec_of(fn: Callable[..., Any]) -> TaskSpec:
    spec = getattr(fn, "dtlab_task", None)
    if spec is None:
        raise TypeError(f"{fn!r} is not a grader task (decorate it with @task)")
    return spec


def resolve(ref: str) -> Callable[..., Any]:
    module_name, _, qualname = ref.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


class TaskContext:
    """What a task sees of its worker: rank, groups, the student module, the recorder."""

    def __init__(self, worker, spec: TaskSpec, location) -> None:
        self._worker = worker
        self.spec = spec
        self.location = location
        self.rank: int = worker.rank
        self.world_size: int = worker.world_size
        #: where this rank computes: ``cpu`` on gloo, its GPU (``cuda:i``) in an NCCL world
        self.device = torch.device(worker.device)

    def to_device(self, value):
        """``value`` on this rank's device (itself on the CPU): tensors (a leaf keeps its
        ``requires_grad``), modules (moved in place), dataclasses of tensors, and lists, tuples
        and dicts of those. What a task returns comes back to the CPU by itself (``plain``)."""
        return on_device(value, self.device)

    def group(self, ranks: tuple[int, ...] | None):
        """The process group over ``ranks`` (``None``: the whole world). Call on every rank."""
        return self._worker.group(ranks)

    def in_group(self, ranks: tuple[int, ...] | None) -> bool:
        return ranks is None or self.rank in ranks

    def group_rank(self, ranks: tuple[int, ...] | None) -> int:
        return self.rank if ranks is None else ranks.index(self.rank)

    @contextlib.contextmanager
    def student_code(self, module: str | None = None) -> Iterator[ModuleType]:
        """Import a graded module (default: the task's) and record/guard everything done inside.

        The module is imported fresh once per task; later blocks in the same task reuse it.
        """
        from graders.training.python_heap import graded_code_starts
        from graders.world.graded_import import import_student_module

        with self._guarded():
            graded_code_starts()
            yield import_student_module(self.location, module or self.spec.module)

    @contextlib.contextmanager
    def _guarded(self) -> Iterator[None]:
        recorder = self._worker.recorder
        modes = _mode_depths()
        recorder.begin(
            self.spec.exercise,
            self.spec.banned,
            self.location.graded_root,
            side_channels=self.spec.multi_rank,
            hand_written=self.spec.hand_written,
        )
        try:
            yield
        finally:
            recorder.end()
            _leave_modes_at(modes)

    def run_script(self, argv: list[str]) -> None:
        """Run the task's graded module as a program, ``python <module>.py *argv``, recorded and
        guarded: as ``__main__``, with that ``sys.argv`` and its folder first on ``sys.path``, as
        ``torchrun`` runs a script. ``sys.exit()`` with no code or 0 ends it normally."""
        import runpy

        from graders.world.graded_import import MissingModule

        path = os.path.join(self.location.chapter_dir, self.spec.module + ".py")
        if not os.path.isfile(path):
            raise MissingModule(self.spec.module + ".py")
        argv_before, path_before = sys.argv, list(sys.path)
        sys.argv = [path, *argv]
        sys.path.insert(0, self.location.chapter_dir)
        try:
            with self._guarded():
                runpy.run_path(path, run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise
        finally:
            sys.argv, sys.path[:] = argv_before, path_before

    def graded_class(self, module: ModuleType, name: str, bases: tuple[type, ...] = (object,)) -> type:
        """``module.name``, checked to be graded code: every class of its MRO but ``bases`` is
        defined in the graded folder, and so is every method it has that none of ``bases``
        defines. A class that inherits, or borrows as a method, what the exercise asks the student
        to write (``class Adam(torch.optim.Adam)``, ``step = torch.optim.SGD.step``) would run it
        when the kit calls it, where the guard cannot tell: refused as that object, banned."""
        from graders.world.graded_import import foreign_code

        cls = getattr(module, name)
        found = foreign_code(cls, self.location.graded_root, bases) if isinstance(cls, type) else None
        if found:
            where = f"{os.path.basename(getattr(module, '__file__', '') or '')} in class {name}"
            self._worker.recorder.bans.refuse(found, site=where)
        return cls

    def mark(self, label: str) -> None:
        self._worker.recorder.mark(label)

    @contextlib.contextmanager
    def scratch_dir(self) -> Iterator[str]:
        """A fresh, empty folder of this rank's for the task (a drive the kit hands graded code),
        removed afterwards with everything in it."""
        path = tempfile.mkdtemp(prefix=f"scratch-{self.rank}-", dir=self._worker.dir)
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)

    def gradient_ready(self, name: str) -> None:
        """A ``ready:<name>`` event in the trace: parameter ``name``'s gradient is complete."""
        self._worker.recorder.ready(name)

    def watch_gathers(self, callback) -> None:
        """``callback(output tensors, where)`` after every all-gather graded code makes, until
        the student block ends (the live ledger counts gathered parameters so)."""
        self._worker.recorder.on_gathered = callback

    def release_buffers(self) -> None:
        """Until the student block ends, the backend is handed aliases of graded code's buffers,
        cut loose when a collective returns or its handle is dropped after it completed
        (``graders.comm.backend_hold``): what a live ledger counts is then the graded code's doing,
        not the timing of the backend's threads. ``MeasuredTraining`` calls it."""
        self._worker.recorder.release_buffers = True

    def on_the_wire(self) -> dict:
        """The most bytes asynchronous collectives held at once since the last call, and where."""
        return self._worker.recorder.on_the_wire.take()

    def note(self, text: str) -> None:
        """Say what this rank is doing (one line, replaced by the next note). If the task hangs
        or crashes, the report shows the rank's last note: e.g. which microbatch it is at."""
        self._worker.set_note(text)

    def groups_made(self) -> list:
        """The process groups graded code made in this task (``new_group``), handed over once: a
        task that grades code making groups destroys them, or every example would leave gloo
        groups (and their threads) behind in the persistent world."""
        made, self._worker.recorder.made_groups = self._worker.recorder.made_groups, []
        return made

    def graded_request(self, frame) -> bool:
        """Whether graded code is behind the call running in ``frame`` (for a dispatch mode of the
        kit's own)."""
        return self._worker.recorder.bans.graded_request(frame)

    def hand_written(self) -> dict:
        """What the allowlist of a "by hand" exercise saw graded code do since the last call (or
        the student block's start): the work by direction (``{"macs", "largest"}``) and what
        autograd recorded (:class:`graders.comm.hand_written.HandWrittenMath`); ``{}`` for any
        other exercise. Call it once before the part to judge, to leave out the import and the
        construction."""
        watch = self._worker.recorder.hand_written
        return watch.take() if watch is not None else {}

    def barrier(self, ranks: tuple[int, ...] | None = None) -> None:
        """A barrier for the kit's own synchronisation (not recorded, never banned)."""
        from graders.comm.recorder import REAL

        REAL["barrier"](group=self.group(ranks))

    @property
    def dist(self):
        return dist
