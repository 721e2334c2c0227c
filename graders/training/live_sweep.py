"""Worker side: every tensor storage alive, found by what holds it rather than by how it was made.

The live ledger (:mod:`graders.training.live_memory`) sees a storage come to life at the
dispatcher. Some routes make one below it: ``torch.tensor(list)`` and its kin (a factory fills a
fresh tensor, then hands it to ``lift_fresh``, whose output shares its input's storage),
``torch.frombuffer``, ``torch.from_numpy``, a storage by hand, a pinned buffer. Two nets catch
them all, whatever the route:

* at the dispatcher, the one operator every tensor made from data passes (``lift_fresh``);
* :meth:`StorageSweep.found`: every tensor and storage object the garbage collector tracks
  (module and optimizer state, closures, globals and containers of any kind hold Python
  objects, and every tensor object is tracked), taken at the ledger's phase boundaries and
  whenever kit code steps in.

A sweep walks only what is new. Every object the collector tracks is born in its youngest
generation and leaves it only through a collection; a callback at the start of every collection
(an automatic one, or graded code's ``gc.collect()``) takes note of the young tensors first, by
weak reference, so a sweep reads those notes and the young generation: a few hundred objects,
not the process. ``gc.freeze()``, which would hide objects without a collection, is a door
(``catalog.DOORS``); a callback graded code removed is put back, and that sweep walks every
object.

Neither net counts what is not graded code's: the storages alive when the ledger starts (the
kit's cases, models and references) and those the kit makes while the ledger is paused are
*excluded*, each by a weak reference, so that an id reused by a later storage is not excluded
with it.
"""

from __future__ import annotations

import gc
import itertools
import weakref
from collections.abc import Iterable

import torch

_Tensor = torch.Tensor
_Storage = torch.UntypedStorage
_TypedStorage = torch.TypedStorage
_HOLDERS = (_Tensor, _Storage, _TypedStorage)


def storage_of(value) -> _Storage | None:
    """The untyped storage behind a tensor or a storage object, or None (a tensor without one:
    sparse, nested, meta, a wrapper subclass)."""
    try:
        if isinstance(value, _Tensor):
            return value.untyped_storage()
        if isinstance(value, _Storage):
            return value
        if isinstance(value, _TypedStorage):
            return value._untyped_storage
    except (RuntimeError, NotImplementedError, TypeError):
        return None
    return None


def _storages(objects: list) -> list[_Storage]:
    """The storages behind the tensors and storage objects among ``objects``. The types are
    tested once each, and the objects picked out by type in C (``compress``): a sweep at a task's
    start reads a few thousand objects, where a Python loop testing each one cost ~60 µs a task."""
    # issubclass of the type, not isinstance: isinstance reads __class__, which can warn
    holders = {kind for kind in set(map(type, objects)) if issubclass(kind, _HOLDERS)}
    if not holders:
        return []
    found = []
    for value in itertools.compress(objects, map(holders.__contains__, map(type, objects))):
        storage = storage_of(value)
        if storage is not None:
            found.append(storage)
    return found


class StorageSweep:
    """The storages alive that are neither known to a ledger (``known``: its ``id -> bytes``)
    nor excluded as the kit's. :meth:`start` and :meth:`stop` bracket the ledger's life."""

    def __init__(self, known: dict[int, int]) -> None:
        self.known = known
        self.paused = False  # kit code runs: what is made now is the kit's
        self._excluded: dict[int, weakref.ref] = {}
        self._noted: list[weakref.ref] = []  # young storages a collection was about to move
        self._callback = self._before_collection
        self._walk_everything = False
        self.active = False

    # -- the ledger's life ----------------------------------------------------------------------
    def start(self) -> None:
        """Everything alive now is the kit's; from now on, note the young before collections."""
        self.exclude(_storages(gc.get_objects()))
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)
        self.active = True

    def stop(self) -> None:
        self.active = False
        while self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
        self._noted.clear()

    def _before_collection(self, phase: str, info: dict) -> None:
        if phase != "start":
            return
        for storage in _storages(gc.get_objects(generation=0)):
            if id(storage) not in self.known and not self.is_excluded(storage):
                if self.paused:
                    self.exclude((storage,))
                else:
                    self._noted.append(weakref.ref(storage))

    # -- exclusions -----------------------------------------------------------------------------
    def is_excluded(self, storage) -> bool:
        ref = self._excluded.get(id(storage))
        return ref is not None and ref() is storage

    def exclude(self, storages: Iterable[_Storage]) -> None:
        """These storages are the kit's: never count them."""
        for storage in storages:
            key = id(storage)
            ref = self._excluded.get(key)
            if ref is None or ref() is not storage:
                self._excluded[key] = weakref.ref(storage, self._forget(key))

    def _forget(self, key: int):
        excluded = self._excluded

        def forget(ref) -> None:
            if excluded.get(key) is ref:
                del excluded[key]

        return forget

    # -- sweeps ---------------------------------------------------------------------------------
    def found(self) -> list[_Storage]:
        """The live storages that are neither known nor excluded, made since the last sweep (none
        outside the ledger's life)."""
        if not self.active:
            return []
        candidates = [ref() for ref in self._noted]
        self._noted.clear()
        if self._callback not in gc.callbacks:  # graded code removed it: walk everything, once
            gc.callbacks.append(self._callback)
            self._walk_everything = True
        generation = None if self._walk_everything else 0
        self._walk_everything = False
        candidates += _storages(gc.get_objects(generation=generation))
        fresh: dict[int, _Storage] = {}
        for storage in candidates:
            if storage is None:
                continue
            key = id(storage)
            if key not in self.known and key not in fresh and not self.is_excluded(storage):
                fresh[key] = storage
        return list(fresh.values())

    def exclude_new(self) -> None:
        """What is new since the last sweep is the kit's (kit code just ran, paused)."""
        self.exclude(self.found())
