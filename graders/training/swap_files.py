"""The NVMe drive of the ZeRO-Infinity exercise: files in one folder, each read and written whole.

:class:`SwapFiles` is what the kit hands an ``InfinityOptimizer``, as DeepSpeed hands its
swapper an asynchronous I/O handle over an NVMe folder. A file holds the raw bytes of one
tensor; the optimizer chooses the names (``part3.exp_avg``), allocates the tensors reads fill,
and decides when to read, write and rename:

* ``write(name, tensor)``: the file ``name`` becomes the tensor's bytes (the old content is
  truncated first, as ``open(name, "wb")`` does);
* ``replace(src, dst)``: rename ``src`` to ``dst`` atomically (``os.replace``);
* ``read(name, out)``: fill ``out`` with the file's bytes (their counts must match);
* ``read_async(name, out)``: the same on the drive's own thread; ``.wait()`` on what it returns
  blocks until ``out`` is filled;
* ``exists(name)``.

Graded code is handed :meth:`SwapFiles.drive`, those five requests and nothing else.

Graded code starts no threads: the drive's reader thread is the kit's, started when the drive
is made, before graded code runs. The drive logs every request in program order
(:class:`SwapEvent`), which is what the graders read: bytes read and written per step, whether
the next partition's read was in flight while the current one was stepped, and how many bytes of
swapped tensors were alive at each request (:attr:`SwapFiles.resident_peak`). For the crash
check, :meth:`SwapFiles.tear_write` makes one later write keep only half its bytes and fail, as
a power loss in the middle of writing would.
"""

from __future__ import annotations

import errno
import itertools
import os
import queue
import threading
import time
import weakref
from dataclasses import dataclass, field

import torch


class SimulatedPowerLoss(OSError):
    """A write the kit tore on purpose: the file kept only the first half of its bytes."""


@dataclass
class SwapEvent:
    op: str  # "read", "write", "replace", "compute_begin" or "compute_end" (an inner step)
    name: str
    nbytes: int = 0
    seq: int = 0  # its place in the program order of requests
    is_async: bool = False
    waited: int | None = None  # a read: the seq of the request at which its bytes were awaited
    dst: str = ""  # replace: the new name
    step: int = 0

    def plain(self) -> dict:
        return dict(self.__dict__)


@dataclass
class _Pending:
    """A read in flight: ``wait()`` blocks until the drive has filled the tensor."""

    drive: SwapFiles
    event: SwapEvent
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None

    def wait(self) -> None:
        self.done.wait()
        if self.event.waited is None:
            self.event.waited = self.drive._next_seq()
        if self.error is not None:
            raise self.error


class _Requests:
    """Attributes that are plain functions (no bound method: its ``__reduce__`` would name the
    object behind it), set once."""

    __slots__ = ()

    def __init__(self, **functions) -> None:
        for name, fn in functions.items():
            object.__setattr__(self, name, fn)

    def __setattr__(self, name, value) -> None:
        raise AttributeError("the drive's requests cannot be replaced")


class PendingRead(_Requests):
    """What ``read_async`` returns: ``wait()``, and nothing of the drive's bookkeeping."""

    __slots__ = ("wait",)

    def __repr__(self) -> str:
        return "<pending read: wait>"


class Drive(_Requests):
    """What graded code is handed: the drive's requests as closures over the :class:`SwapFiles`,
    whose log is reachable only through a closure's cells (a door the static scan closes)."""

    __slots__ = ("write", "replace", "read", "read_async", "exists")

    def __repr__(self) -> str:
        return "<drive: write, replace, read, read_async, exists>"


def _closure(method):
    def request(*args, **kwargs):
        return method(*args, **kwargs)

    request.__name__ = request.__qualname__ = method.__name__
    request.__doc__ = method.__doc__
    return request


class SwapFiles:
    """A folder standing in for an NVMe drive (see the module docstring)."""

    def __init__(self, swap_dir: str, read_bytes_per_s: float | None = None) -> None:
        swap_dir = os.fspath(swap_dir)
        if not os.path.isdir(swap_dir):
            raise ValueError(f"swap_dir {swap_dir!r} is not an existing folder: make it first")
        if not os.access(swap_dir, os.W_OK | os.X_OK):
            raise ValueError(f"swap_dir {swap_dir!r} is not writable")
        self.swap_dir = swap_dir
        #: a drive slower than the page cache (the benchmark's NVMe): a read takes at least its
        #: bytes over this rate, waiting without the GIL as a real device would
        self.read_bytes_per_s = read_bytes_per_s
        self.events: list[SwapEvent] = []
        self.step = 0
        self.resident_peak: dict[int, int] = {}  # step -> most bytes of swapped tensors alive
        self._seq = itertools.count()
        self._swapped: dict[int, tuple[weakref.ref, int]] = {}  # id(storage) -> (ref, bytes)
        self._filled: dict[int, str] = {}  # id(storage) -> the file that last filled it
        self._tear_at: int | None = None
        self._writes = 0
        self._requests: queue.SimpleQueue = queue.SimpleQueue()

        self._reader = threading.Thread(target=self._serve, name="swap-reader", daemon=True)
        self._reader.start()

    # -- the drive's interface ------------------------------------------------------------------
    def write(self, name: str, tensor: torch.Tensor) -> None:
        data = self._bytes_of(tensor, "write")
        self._log("write", name, data.nbytes)
        self._writes += 1
        with open(self._path(name), "wb") as file:
            if self._tear_at is not None and self._writes == self._tear_at:
                self._tear_at = None
                file.write(data[: data.nbytes // 2])
                raise SimulatedPowerLoss(
                    errno.EIO,
                    f"simulated power loss while writing {name!r}: it kept {data.nbytes // 2} "
                    f"of {data.nbytes} bytes",
                )
            file.write(data)

    def replace(self, src: str, dst: str) -> None:
        self._log("replace", src, dst=dst)
        os.replace(self._path(src), self._path(dst))

    def observed(self, optimizer_cls: type) -> type:
        """A subclass of ``optimizer_cls`` whose ``step()`` the drive logs as ``compute_begin`` and
        ``compute_end``, named after the file that filled the first tensor it steps."""
        drive = self

        class Observed(optimizer_cls):
            def step(self, *args, **kwargs):
                tensors = [p for group in self.param_groups for p in group["params"]]
                name = drive._filled.get(id(tensors[0].untyped_storage()), "") if tensors else ""
                drive._log("compute_begin", name)
                try:
                    return super().step(*args, **kwargs)
                finally:
                    drive._log("compute_end", name)

        Observed.__name__ = Observed.__qualname__ = optimizer_cls.__name__
        return Observed

    def read(self, name: str, out: torch.Tensor) -> None:
        data = self._bytes_of(out, "read into", filled_from=name)
        event = self._log("read", name, data.nbytes)
        self._fill(name, data)
        event.waited = event.seq

    def read_async(self, name: str, out: torch.Tensor) -> PendingRead:
        data = self._bytes_of(out, "read into", filled_from=name)
        pending = _Pending(self, self._log("read", name, data.nbytes, is_async=True))
        self._requests.put((pending, name, data))
        return PendingRead(wait=_closure(pending.wait))

    def exists(self, name: str) -> bool:
        return os.path.isfile(self._path(name))

    # -- what the kit reads -------------------------------------------------------------------
    def drive(self) -> Drive:
        """The object to hand graded code."""
        return Drive(**{name: _closure(getattr(self, name)) for name in Drive.__slots__})

    def tampered(self) -> list[str]:
        """What graded code changed of this object (a tampered log is no evidence)."""
        changed = sorted(name for name in vars(self) if name in _METHODS)
        changed += sorted(name for name in _METHODS if getattr(SwapFiles, name) is not _METHODS[name])
        return changed

    def begin_step(self, step: int) -> None:
        self.step = step

    def files(self) -> dict[str, int]:
        """Every file in the folder and its size in bytes."""
        return {entry.name: entry.stat().st_size for entry in os.scandir(self.swap_dir) if entry.is_file()}

    def tear_write(self, index: int) -> None:
        """Make the ``index``-th write from now (1 = the next) keep half its bytes and fail."""
        self._tear_at = self._writes + index

    def close(self) -> None:
        self._requests.put(None)
        self._reader.join(timeout=5)

    # -- inside --------------------------------------------------------------------------------
    def _serve(self) -> None:
        while (request := self._requests.get()) is not None:
            pending, name, data = request
            try:
                self._fill(name, data)
            except BaseException as exc:  # handed to wait()
                pending.error = exc
            del request, data  # the tensor is the optimizer's again: nothing here keeps it alive
            pending.done.set()

    def _fill(self, name: str, data) -> None:
        path = self._path(name)
        size = os.path.getsize(path) if os.path.isfile(path) else None
        if size is None:
            raise FileNotFoundError(errno.ENOENT, f"no swap file {name!r}")
        if size != data.nbytes:
            raise ValueError(f"swap file {name!r} holds {size} bytes; the tensor to fill has {data.nbytes}")
        started = time.perf_counter()
        with open(path, "rb") as file:
            file.readinto(data)
        if self.read_bytes_per_s:
            time.sleep(max(0.0, data.nbytes / self.read_bytes_per_s - (time.perf_counter() - started)))

    def _path(self, name: str) -> str:
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"a swap file name is a plain file name such as 'part0.master', not {name!r}")
        return os.path.join(self.swap_dir, name)

    def _bytes_of(self, tensor: torch.Tensor, what: str, filled_from: str = ""):
        """The tensor's bytes as a flat byte view (no copy), its storage counted as swapped."""
        if not isinstance(tensor, torch.Tensor) or tensor.device.type != "cpu" or not tensor.is_contiguous():
            raise ValueError(f"the drive can only {what} a contiguous CPU tensor")
        self._swapped_storage(tensor.untyped_storage())
        if filled_from:
            self._filled[id(tensor.untyped_storage())] = _own_copy(filled_from)
        flat = tensor.detach().reshape(-1)
        return memoryview(flat.view(torch.uint8).numpy()) if flat.numel() else memoryview(b"")

    def _swapped_storage(self, storage) -> None:
        key = id(storage)
        known = self._swapped.get(key)
        if known is None or known[0]() is not storage:

            def forget(_ref, key=key) -> None:
                self._swapped.pop(key, None)
                self._filled.pop(key, None)

            self._swapped[key] = (weakref.ref(storage, forget), storage.nbytes())

    def _resident(self) -> int:
        return sum(size for ref, size in list(self._swapped.values()) if ref() is not None)

    def _next_seq(self) -> int:
        seq = next(self._seq)
        resident = self._resident()
        if resident > self.resident_peak.get(self.step, 0):
            self.resident_peak[self.step] = resident
        return seq

    def _log(self, op: str, name: str, nbytes: int = 0, **fields) -> SwapEvent:
        if not op.startswith("compute"):
            self._path(name)
        name = _own_copy(name)  # the drive's log keeps its own: graded code's string may go
        fields = {key: _own_copy(value) if isinstance(value, str) else value for key, value in fields.items()}
        event = SwapEvent(op, name, nbytes, self._next_seq(), step=self.step, **fields)
        self.events.append(event)
        return event


def _own_copy(text: str) -> str:
    """A string equal to ``text`` that the kit made (the Python heap's ledger counts strings graded
    code made and something keeps)."""
    return "".join(list(text)) if isinstance(text, str) else text


#: the functions the drive's evidence rests on, as the kit defined them
_METHODS = {name: fn for name, fn in vars(SwapFiles).items() if callable(fn)}
