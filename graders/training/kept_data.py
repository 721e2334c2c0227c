"""Worker side: data graded code keeps outside torch that block sizes alone do not tell apart.

:class:`graders.training.python_heap.PythonHeap` counts the traced blocks that hold data by their
size: numbers (40 bytes or less) and arrays (512 or more). The blocks in between are mostly
structure (small dicts, tuples, frames), which CPython's free lists hold back after honest use.
But some objects are data whatever their size, and some data is no traced block at all:

* ``bytes``, ``bytearray``, ``str``, ``array.array``: data at any size (a gradient packed into
  many 100-byte strings is the gradient);
* ``mmap``: memory the operating system maps, which ``tracemalloc`` never sees;
* files: what graded code wrote to a file (a temporary one included) and still keeps, on disk or
  open.

:class:`KeptData` finds them at a phase's end: the data objects any live object refers to whose
block was made in the phase by graded code (``tracemalloc.get_object_traceback``), the mmaps
alive, and the files graded code opened for writing in the phase (an audit hook notes them) or
holds open. It returns their bytes, not counting again what the block sizes already counted.
(The kit keeps copies of its own of what graded code hands it, a file name its drive logs, say:
what graded code made and let go is not kept.)
"""

from __future__ import annotations

import array
import gc
import io
import itertools
import mmap
import os
import stat
import sys
import time
import tracemalloc

#: kinds of object that are data at any size
DATA_TYPES = (bytes, bytearray, str, array.array)
_FOUND = (*DATA_TYPES, mmap.mmap)
_EXACT = frozenset(_FOUND)
_UNTRACKED_CONTAINERS = (tuple, dict, frozenset)
_KIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: the blocks the size rules of python_heap count (a number; an array)
NUMBER_BLOCK, ARRAY_BLOCK = 40, 512
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _counted_by_size(size: int) -> bool:
    return size <= NUMBER_BLOCK or size >= ARRAY_BLOCK


def _uncounted_bytes(value) -> int:
    """What ``value`` holds that the size rules did not count (its block in 41-511 bytes; a
    bytearray's or an array's buffer, a block of its own, likewise)."""
    if type(value) in (bytearray, array.array):
        shell = sys.getsizeof(value) - value.__alloc__() if isinstance(value, bytearray) else 64
        buffer = sys.getsizeof(value) - shell
        return shell + (0 if _counted_by_size(buffer) else buffer)
    size = sys.getsizeof(value)
    return 0 if _counted_by_size(size) else size


def _writes(args: tuple) -> bool:
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    text = mode if isinstance(mode, str) else ""
    return any(c in text for c in "wax+") or bool(isinstance(flags, int) and flags & _WRITE_FLAGS)


def traced_blocks() -> tuple:
    """Every traced block as ``(domain, size, frames, ...)``, ``frames`` innermost first (what
    ``tracemalloc.take_snapshot`` wraps, without an object per block and frame)."""
    return tracemalloc._get_traces()


#: ``frames_of(value)``: the raw frames (innermost first) of the block ``value`` lives in, or None
#: if untraced (a C function: mapped over many objects at once)
frames_of = tracemalloc._get_object_traceback


class KeptData:
    """The data a phase kept outside torch that block sizes do not count (see the module)."""

    def __init__(self, graded_root: str) -> None:
        self.graded_root = graded_root
        self._written: set[str] = set()  # every path graded code created or opened for writing
        self._phase_began = time.time()
        self._beside_the_heap = False  # an mmap made, or a file opened by graded code, this phase
        install()
        _HOOK.listener = self

    def phase_started(self) -> None:
        self._phase_began = time.time()
        self._beside_the_heap = False

    def outside_the_heap(self) -> bool:
        """Whether the phase may keep data no traced block holds: it made an mmap, or graded code
        opened a file in it or wrote one before (and may write it again through a handle)."""
        return self._beside_the_heap or bool(self._written)

    def mapped(self) -> None:
        """An ``mmap.__new__`` audit event."""
        self._beside_the_heap = True

    def stop(self) -> None:
        if _HOOK.listener is self:
            _HOOK.listener = None

    def opened(self, path, args: tuple) -> None:
        """An ``open`` (or ``tempfile.mkstemp``) audit event: remember a path graded code writes
        to, or made (torch's ``save`` then writes it from C++, which raises no event)."""
        if not isinstance(path, str | bytes) or not self._graded_writes(sys._getframe(2)):
            return
        self._beside_the_heap = True
        if _writes(args):
            self._written.add(os.fsdecode(path))

    def _graded_writes(self, frame) -> bool:
        """Whether graded code is behind a file opened in ``frame``: the nearest frame that is the
        kit's or graded code's decides (torch's ``save`` and the standard library write for their
        caller)."""
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith(self.graded_root):
                return True
            if filename.startswith(_KIT_DIR):
                return False
            frame = frame.f_back
        return False

    def kept(self, owned) -> dict[str, int]:
        """``{"file:line" or kind: bytes}`` of what the phase kept (see the module); ``owned(frames)
        -> "file:line" or ""`` says whether graded code made a block."""
        # (tracing is on: every object made here is traced and costs, so allocate little and
        # loop in C: the data objects first, then their frames, then Python only for the few
        # made in the phase)
        candidates = _data_objects(_referred())
        found: dict[str, int] = {}
        seen: set[int] = set()
        for value, made in zip(candidates, map(frames_of, candidates)):
            if made is None or id(value) in seen:
                continue
            seen.add(id(value))
            line = owned(made)
            if not line:
                continue
            size = len(value) if isinstance(value, mmap.mmap) else _uncounted_bytes(value)
            if size:
                found[line] = found.get(line, 0) + size
        kept_files = self._files(owned)
        if kept_files:
            found["files"] = kept_files
        return found

    def _files(self, owned) -> int:
        """Bytes of the files graded code wrote to in the phase (still on disk), and of the files
        it opened in the phase and still holds open (a temporary file), each file once."""
        sizes: dict[tuple[int, int], int] = {}
        for path in self._written:
            try:
                info = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_mtime >= self._phase_began - 0.01:
                sizes[(info.st_dev, info.st_ino)] = info.st_size
        for handle in gc.get_objects():
            if type(handle) is not io.FileIO or handle.closed:
                continue
            made = frames_of(handle)
            if made is None or not owned(made):
                continue
            try:
                info = os.fstat(handle.fileno())
            except (OSError, ValueError):
                continue
            if stat.S_ISREG(info.st_mode):
                sizes[(info.st_dev, info.st_ino)] = info.st_size
        return sum(sizes.values())


def _data_objects(objects: list) -> list:
    """The data objects among ``objects``: of the data kinds, or of subclasses of them."""
    kinds = set(map(type, objects))
    wanted = _EXACT | {kind for kind in kinds - _EXACT if issubclass(kind, _FOUND)}
    return list(itertools.compress(objects, map(wanted.__contains__, map(type, objects))))


def _referred() -> list:
    """Every object a tracked object refers to, and what the untracked containers among them
    refer to (CPython stops tracking a tuple or a dict that holds only atoms, such as bytes)."""
    found = gc.get_referents(*gc.get_objects())
    frontier = [v for v in found if type(v) in _UNTRACKED_CONTAINERS and not gc.is_tracked(v)]
    while frontier:
        more = gc.get_referents(*frontier)
        found += more
        frontier = [v for v in more if type(v) in _UNTRACKED_CONTAINERS and not gc.is_tracked(v)]
    return found


class _Hook:
    """One audit hook for the process (audit hooks cannot be removed): it tells the active
    :class:`KeptData` of every file opened."""

    def __init__(self) -> None:
        self.listener: KeptData | None = None
        self.installed = False

    def __call__(self, event: str, args: tuple) -> None:
        listener = self.listener
        if listener is None or not args:
            return
        if event == "open":
            listener.opened(args[0], args)
        elif event == "mmap.__new__":
            listener.mapped()
        elif event == "tempfile.mkstemp":
            listener.opened(args[0], (args[0], "w"))


_HOOK = _Hook()


def install() -> None:
    """Add the audit hook, once for the process (a rank's first traced window does)."""
    if not _HOOK.installed:
        sys.addaudithook(_HOOK)
        _HOOK.installed = True
