"""Worker side: every tensor storage alive on the rank, with its peak inside every phase.

:class:`LiveLedger` is a ``TorchDispatchMode`` the kit enters *before* graded code is
imported. Every storage an operator creates while it is active (a fresh storage: not a view
or an in-place result of one of the operator's inputs) is tracked with a weak reference, and
so are the tensors the kit hands over (:meth:`LiveLedger.track`, e.g. the model's
parameters). A running total of the tracked storages still alive is kept at every operator,
so a peak is seen where it happens (at a collective, in an autograd hook, in a saved-tensor
pack), whoever holds the memory: an attribute, a module-level global, a closure, autograd's
saved tensors, a pending collective. Nothing is found by walking references from the
student's object, so nothing can be hidden from a walk.

What is counted:

* each storage once, at its full size (a view keeps its whole buffer alive);
* a storage however it was made: one filled from data below the dispatcher
  (``torch.tensor(list)``, ``from_numpy``) is adopted as it enters it (``aten::lift_fresh``), and
  any other (a foreign buffer, a storage by hand) when a sweep of the live objects finds it
  (:mod:`graders.training.live_sweep`: at every phase boundary and whenever kit code steps in);
* only storages made inside the ledger: what was alive when it started, and what the kit builds
  inside :meth:`LiveLedger.paused` (snapshots, reference copies), is not the student's;
* not memory outside torch storages: the memory-graded exercises ban numpy, files and threads
  (``catalog.MEMORY_DOORS``), and a graded ledger counts the Python objects graded code keeps
  with :class:`graders.training.python_heap.PythonHeap`.

A phase is named by the kit (:meth:`LiveLedger.enter`); its peak is the most bytes alive at
any operator while it was current, over every step, with where that happened.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

from graders.comm import backend_hold
from graders.training.live_sweep import StorageSweep
from graders.training.python_heap import PythonHeap, register, traced_example

_Tensor = torch.Tensor
#: ``torch.tensor(data)`` and its kin (``as_tensor``, ``new_tensor``, the legacy constructors,
#: ``from_numpy``) fill a fresh tensor below the dispatcher, then hand it to this operator
_LIFT_FRESH = torch.ops.aten.lift_fresh.default


@dataclass
class Peak:
    bytes: int = 0
    where: str = ""

    def plain(self) -> dict:
        return {"bytes": self.bytes, "where": self.where}


def tensors_in(value, found: list) -> list:
    """``found`` with every tensor in ``value`` (a tensor, or nested lists, tuples and dicts)."""
    if isinstance(value, _Tensor):
        found.append(value)
    elif isinstance(value, list | tuple):
        for item in value:
            tensors_in(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            tensors_in(item, found)
    return found


class LiveLedger(TorchDispatchMode):
    """Bytes of the storages alive that came to life in graded code, and their peaks by phase."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # nothing is compiled here: spare every operator torch's dynamo wrapper

    def __init__(self, site_root: str = "", *, python_heap: str | tuple[str, ...] | None = None) -> None:
        """``site_root``: the graded code's folder (a graded ledger); ``python_heap``: the window
        in which the Python data graded code keeps is counted too (``"steady"``, or the phases:
        see :class:`~graders.training.python_heap.PythonHeap`), or None."""
        super().__init__()
        self.site_root = site_root
        self.total = 0
        self.phase = "setup"
        self.step = 0
        self.peaks: dict[str, Peak] = {}
        self._peak = self.peaks.setdefault(self.phase, Peak())
        self._sizes: dict[int, int] = {}  # id(storage) -> bytes counted
        self._born: dict[int, tuple[str, int]] = {}  # id(storage) -> (phase, step) it came to life in
        #: id(storage) -> its birth number: ids are reused once a storage dies, birth numbers never
        self._birth: dict[int, int] = {}
        self._births = itertools.count()
        self._refs: dict[int, weakref.ref] = {}
        self._paused = 0
        #: the storages found by what holds them, and those that are the kit's
        self.sweep = StorageSweep(self._sizes)
        #: bytes alive per (phase, step) they were born in, and the peak of the current one's
        self.born_alive: dict[tuple[str, int], int] = {}
        self.fresh_peaks: dict[str, int] = {}
        #: the largest single storage born in each phase, and where
        self.largest: dict[str, Peak] = {}
        self.after_op = None  # called after every operator (the plain measurement's probe)
        #: the Python objects graded code keeps (a graded ledger only: one with a ``site_root``)
        traced = site_root and python_heap and traced_example()
        self.heap = PythonHeap(site_root, python_heap) if traced else None
        if self.heap is not None:
            register(self.heap)
        #: bytes alive of the storages collectives gathered into (all-gather outputs), and peaks
        self.gathered = 0
        self.gathered_peaks: dict[str, Peak] = {}
        self._gathered: dict[int, bool] = {}

    # -- what is tracked ---------------------------------------------------------------------
    def track(self, tensors: Iterable[torch.Tensor]) -> None:
        """Count the storages of ``tensors`` (handed over by the kit) as the graded code's."""
        for tensor in tensors:
            if isinstance(tensor, _Tensor):
                self._adopt(tensor.untyped_storage())
        self._sample("track")

    def _adopt(self, storage) -> None:
        key = id(storage)
        size = storage.nbytes()
        known = self._sizes.get(key)
        if known is None:
            born = (self.phase, self.step)
            self._refs[key] = weakref.ref(storage, self._forget_callback(key))
            self._sizes[key] = size
            self._born[key] = born
            self._birth[key] = next(self._births)
            self.total += size
            fresh = self.born_alive[born] = self.born_alive.get(born, 0) + size
            if fresh > self.fresh_peaks.get(self.phase, 0):
                self.fresh_peaks[self.phase] = fresh
            largest = self.largest.setdefault(self.phase, Peak())
            if size > largest.bytes:
                largest.bytes, largest.where = size, self._student_site()
        elif known != size:  # resized in place
            self._sizes[key] = size
            self.total += size - known
            born = self._born[key]
            self.born_alive[born] = self.born_alive.get(born, 0) + size - known
            if key in self._gathered:
                self._count_gathered(size - known)

    def _forget_callback(self, key: int):
        def forget(_ref) -> None:
            size = self._sizes.pop(key, None)
            self._refs.pop(key, None)
            born = self._born.pop(key, None)
            self._birth.pop(key, None)
            if size is not None:
                self.total -= size
                self.born_alive[born] -= size
                if self._gathered.pop(key, None) is not None:
                    self.gathered -= size

        return forget

    def gathered_into(self, tensors: Iterable[torch.Tensor], where: str = "") -> None:
        """``tensors`` are the outputs of a gathering collective: count their storages, while
        they live, as gathered parameters (the recorder calls this for every all-gather)."""
        if self._paused:
            return
        for tensor in tensors:
            storage = tensor.untyped_storage()
            self._adopt(storage)
            key = id(storage)
            if key not in self._gathered:
                self._gathered[key] = True
                self._count_gathered(self._sizes.get(key, 0), where)

    def _count_gathered(self, delta: int, where: str = "") -> None:
        self.gathered += delta
        peak = self.gathered_peaks.setdefault(self.phase, Peak())
        if self.gathered > peak.bytes:
            peak.bytes = self.gathered
            peak.where = f"{where}, step {self.step + 1}" if where else f"step {self.step + 1}"

    def bytes_of(self, tensors: Iterable[torch.Tensor]) -> int:
        """Bytes of the tracked storages behind ``tensors`` (each once)."""
        seen = {}
        for tensor in tensors:
            if isinstance(tensor, _Tensor):
                key = id(tensor.untyped_storage())
                if key in self._sizes:
                    seen[key] = self._sizes[key]
        return sum(seen.values())

    def alive_born_in(self, phase: str, step: int | None = None) -> dict[int, int]:
        """``{birth number: bytes}`` of the tracked storages alive now that came to life in
        ``phase`` (of ``step`` only, when given). A birth number names one storage for the
        ledger's life (a storage's id is given to another once it dies)."""
        sizes, births = dict(self._sizes), dict(self._birth)  # copies: another thread may free one
        return {
            births[key]: sizes[key]
            for key, (born, at) in list(self._born.items())
            if born == phase and (step is None or at == step) and key in sizes and key in births
        }

    def storages_born_in(self, phase: str) -> list:
        """The tracked storages alive now that came to life in ``phase`` (of any step)."""
        found = []
        for key, (born, _) in list(self._born.items()):
            ref = self._refs.get(key)
            storage = ref() if ref is not None else None
            if born == phase and storage is not None:
                found.append(storage)
        return found

    def _storage_resized(self, storage) -> None:
        """``UntypedStorage.resize_`` changes a buffer without an operator (FSDP frees gathered
        parameters so): keep the count true, and count a buffer graded code grows."""
        if not self._paused and (id(storage) in self._sizes or storage.nbytes()):
            self._adopt(storage)
            if self.total > self._peak.bytes:
                self._sample("UntypedStorage.resize_")

    def __enter__(self):
        ledger = self
        resize, new = torch._C.StorageBase.resize_, torch._C.StorageBase.__new__

        def resize_(storage, size):
            result = resize(storage, size)
            ledger._storage_resized(storage)
            return result

        def made_by_hand(cls, *args, **kwargs):  # torch.UntypedStorage(nbytes): no operator
            storage = new(cls, *args, **kwargs)
            ledger._storage_resized(storage)
            return storage

        if self.site_root:  # a graded ledger: what is alive now (cases, models, references) is the kit's
            self.sweep.start()
        self._patches = contextlib.ExitStack()
        self._patches.enter_context(class_attribute(torch.UntypedStorage, "resize_", resize_))
        self._patches.enter_context(class_attribute(torch.UntypedStorage, "__new__", made_by_hand))
        if self.heap is not None:
            self.heap.entering(self.phase, self.step)
        return super().__enter__()

    def __exit__(self, *exc):
        self.sweep.stop()
        self._patches.close()
        if self.heap is not None:
            self.heap.phase_ended(self.phase, self.step)
            self.heap.close()
        return super().__exit__(*exc)

    # -- phases ------------------------------------------------------------------------------
    def adopt_found(self, where: str = "sweep") -> None:
        """Count the storages alive that the ledger did not see being made (see the module)."""
        if self._paused:
            return
        backend_hold.cut_completed()  # what a dropped handle's finished work held is let go
        found = self.sweep.found()
        for storage in found:
            self._adopt(storage)
        if found and self.total > self._peak.bytes:
            self._sample(where)

    def enter(self, phase: str, *, step: int | None = None) -> None:
        self.adopt_found(f"end of {self.phase}")
        if self.heap is not None:
            self.heap.phase_ended(self.phase, self.step)
        self.phase = phase
        if step is not None:
            self.step = step
        if self.heap is not None:
            self.heap.entering(phase, self.step)
        self._peak = self.peaks.setdefault(phase, Peak())
        self._sample("start of " + phase)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Kit code inside graded code: what it allocates is not counted. What graded code made
        before it is swept first; what is new when it ends is the kit's."""
        outermost = not self._paused
        if outermost:
            self.adopt_found("kit code")
            self.sweep.paused = True
        self._paused += 1
        try:
            with _disable_current_modes():
                yield
        finally:
            self._paused -= 1
            if outermost:
                self.sweep.exclude_new()
                self.sweep.paused = False

    def summary(self) -> dict:
        """``{phase: {"bytes", "where"}}``: the peaks; ``fresh:<phase>``: the most bytes born in
        one step's ``phase`` alive at once; ``gathered:<phase>``: the most bytes of all-gather
        outputs alive at once."""
        self.adopt_found()
        peaks = {phase: peak.plain() for phase, peak in self.peaks.items()}
        fresh = {f"fresh:{phase}": {"bytes": size, "where": ""} for phase, size in self.fresh_peaks.items()}
        gathered = {f"gathered:{phase}": peak.plain() for phase, peak in self.gathered_peaks.items()}
        largest = {f"largest:{phase}": peak.plain() for phase, peak in self.largest.items()}
        return peaks | fresh | gathered | largest

    # -- the mode ----------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        backend_hold.cut_completed()  # a dropped handle's finished work let go of its buffers
        before = None
        if func.__name__.startswith("set_") and not self._paused:  # it swaps its input's storage
            before = {id(t.untyped_storage()) for t in tensors_in((args, kwargs), [])}
        out = func(*args, **kwargs) if kwargs else func(*args)
        if self._paused:
            return out
        if isinstance(out, _Tensor):
            outputs = (out,)
        else:
            outputs = []
            tensors_in(out, outputs)
        inputs = before
        sizes = self._sizes
        fresh_data = func is _LIFT_FRESH  # a tensor made from data enters here, over a new storage
        for tensor in outputs:
            storage = tensor.untyped_storage()
            if id(storage) in sizes:
                self._adopt(storage)  # may have been resized
                continue
            if fresh_data:
                if not self.sweep.is_excluded(storage):
                    self._adopt(storage)
                continue
            if inputs is None:
                found: list = []
                tensors_in(args, found)
                if kwargs:
                    tensors_in(kwargs, found)
                inputs = {id(t.untyped_storage()) for t in found}
            if id(storage) not in inputs:
                self._adopt(storage)
        if self.total > self._peak.bytes:
            self._sample(func)
        if self.after_op is not None:
            self.after_op()
        return out

    def _sample(self, op) -> None:
        peak = self._peak
        if self.total > peak.bytes:
            peak.bytes = self.total
            peak.where = f"{_op_name(op)} at {self._student_site()}, step {self.step + 1}"

    def _student_site(self) -> str:
        frame = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            if self.site_root and filename.startswith(self.site_root):
                return f"{os.path.basename(filename)}:{frame.f_lineno} in {frame.f_code.co_name}"
            frame = frame.f_back
        return "kit code"


@contextlib.contextmanager
def class_attribute(owner: type, name: str, value) -> Iterator[None]:
    """Set ``owner.name`` for a while; then restore it, or delete it if it was inherited."""
    before = vars(owner).get(name, _ABSENT)
    setattr(owner, name, value)
    try:
        yield
    finally:
        if before is _ABSENT:
            delattr(owner, name)
        else:
            setattr(owner, name, before)


_ABSENT = object()


def _op_name(op) -> str:
    if isinstance(op, str):
        return op
    name = getattr(op, "__name__", str(op))
    return name.removesuffix(".default")
