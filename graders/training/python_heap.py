"""Python data that graded code keeps: the memory torch's storages do not hold.

The live ledger (:mod:`graders.training.live_memory`) counts tensor storages. Data can also be
kept as Python objects: lists from ``.tolist()``, numbers from ``.item()`` or ``float()``. In a
graded ledger's window :mod:`tracemalloc` traces the Python heap, and at the end of every phase
:class:`PythonHeap` counts the blocks *born in that phase* and still alive that graded code made
and that hold data (:func:`_holds_data`: numbers, and arrays such as a list's slots).

Who made a block: the nearest of the :data:`FRAMES` innermost frames that is graded code, the
kit's or torch's. A standard-library or third-party helper, and torch's text of a tensor, work
for their caller; the kit's modes and torch's own bookkeeping are not graded code's data.

The promise is the same wherever it applies: across a phase boundary, graded code keeps at most
:data:`KEEP_LIMIT` bytes of new Python data (a returned loss, a step counter, a small table).
Data kept between steps, or between forward and backward, as Python numbers costs 32 bytes an
element (a float and its list slot), eight times its float32 tensor; the failure names the line
that made most of it. Converting a tensor with ``.item()``, ``float()`` or ``.tolist()`` is fine
where nothing is kept. In-memory buffers (bytes, ``io.BytesIO``) stay refused by the static scan.

Phases that build the graded object (:data:`SETUP_PHASES`) are not counted: modules, closures
and imported code are objects too.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from dataclasses import dataclass

import torch

#: the kit's own code: what it makes inside graded calls is not graded code's
KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + "/"
#: torch's own code, and the part of it that turns tensors into Python numbers and text for its
#: caller (``format(t)``, ``str(t)``)
TORCH = os.path.dirname(torch.__file__) + "/"
TORCH_TEXT = frozenset(TORCH + name for name in ("_tensor.py", "_tensor_str.py"))
#: a module being imported: its code objects and functions are code, not data
IMPORT_MACHINERY = "<frozen importlib"
#: bytes of new Python data graded code may keep across a phase boundary (64 floats, a few
#: numbers and a dict of a few dozen entries pass; a tensor's worth of elements does not)
KEEP_LIMIT = 2 * 1024
#: CPython 3.11 keeps up to 100 freed floats for reuse (``PyFloat_MAXFREELIST``), each a block
#: of 24 bytes
SPARE_FLOATS = 100
FLOAT_BLOCK = 24
#: the largest block a Python number takes, and the smallest counted as an array
NUMBER_BLOCK = 40
ARRAY_BLOCK = 512
#: frames recorded per allocation: graded code is found among them
FRAMES = 4
#: phases that build the graded object: not counted
SETUP_PHASES = frozenset({"setup", "construct"})


def _hold_spare_floats() -> list[float]:
    """As many floats as CPython's free list holds, taken from it (and made fresh past it)."""
    return [n + 0.5 for n in range(SPARE_FLOATS)]


def _take_spare_floats() -> list[float]:
    """The same, at a phase's end (a line of its own: what it makes fresh is told apart)."""
    return [n + 0.25 for n in range(SPARE_FLOATS)]


def _holds_data(size: int) -> bool:
    """A block that holds data: a Python number (a float is 24 bytes, an int 32 or 40), or an
    array (a list's slots, a long string) of :data:`ARRAY_BLOCK` bytes or more. The blocks in
    between are structure (small dicts, tuples, frames, names), which CPython's free lists also
    hold back after use: counting them would charge honest code for noise."""
    return size <= NUMBER_BLOCK or size >= ARRAY_BLOCK


@dataclass
class Kept:
    bytes: int = 0
    phase: str = ""
    step: int = 0
    where: str = ""

    def plain(self) -> dict:
        return {"bytes": self.bytes, "phase": self.phase, "step": self.step, "where": self.where}


class PythonHeap:
    """Traces the Python heap in a graded ledger's window, and keeps the most bytes one phase kept,
    with where the largest of them was made.

    ``window``: ``"steady"`` traces the second step only, the first that runs warm (lazy state,
    an optimizer's or torch's caches, is made in the first), and which shows a cheat keeping
    Python data in every step as well as any other; or a tuple of the phases to trace (one pass:
    a checkpointed forward). Tracing costs time in every allocation: the window is kept small."""

    def __init__(self, graded_root: str, window: str | tuple[str, ...]) -> None:
        if window != "steady" and not isinstance(window, tuple):
            raise ValueError(f"unknown window {window!r}")
        self.graded_root = graded_root.rstrip("/") + "/"
        self.window = window
        self.most = Kept()
        self._started_here = False
        self._held: list[float] | None = None

    def start(self) -> None:
        if not tracemalloc.is_tracing():
            tracemalloc.start(FRAMES)
            self._started_here = True
        self._next_phase()

    def _next_phase(self) -> None:
        """Forget what earlier phases made, and empty CPython's free list of floats for the
        phase: a float graded code makes is then a fresh, traced block."""
        self._held = None
        tracemalloc.clear_traces()
        self._held = _hold_spare_floats()

    def stop(self) -> None:
        if self._started_here:
            tracemalloc.stop()
            self._started_here = False
            self._held = None

    def entering(self, phase: str, step: int) -> None:
        """``phase`` of ``step`` begins: trace it if it is in the window."""
        if self.window == "steady":
            inside = step == 1 and phase not in SETUP_PHASES
        else:
            inside = phase in self.window
        if inside and not self._started_here:
            self.start()
        elif not inside and (self.window != "steady" or step >= 2):
            self.stop()

    def phase_ended(self, phase: str, step: int) -> None:
        """Count what ``phase`` of ``step`` kept, then start the next phase's count."""
        if not self._started_here:
            return
        if phase not in SETUP_PHASES:
            gc.collect(1)  # young cycles (an autograd graph's, say) are garbage, not kept
            # floats graded code let go of wait in the free list, still traced as its: take them
            # out, and count them as what they are, garbage
            freed = _take_spare_floats()
            by_line: dict[str, int] = {}
            for trace in tracemalloc.take_snapshot().traces:
                if _holds_data(trace.size):
                    line = self._graded_line(trace.traceback)
                    if line:
                        by_line[line] = by_line.get(line, 0) + trace.size
            for number in freed:
                made = tracemalloc.get_object_traceback(number)
                line = self._graded_line(made) if made is not None else ""
                if line:
                    by_line[line] -= FLOAT_BLOCK
            kept = sum(by_line.values())
            if kept > self.most.bytes:
                self.most = Kept(kept, phase, step, max(by_line, key=by_line.get))
            del freed
        self._next_phase()

    def _graded_line(self, traceback) -> str:
        """``file:line`` of the graded code that made it, or "" if it is not graded code's: the
        nearest frame that is graded code, the kit's or torch's decides. The kit's modes and
        hooks run inside graded calls, and torch keeps its own Python bookkeeping (an optimizer's
        state dicts, autograd's nodes): neither is graded code's data. A standard-library or
        third-party helper, and torch's text of a tensor, work for their caller; with no owner
        among the frames recorded (an import's deep stack, say), it is nobody's."""
        for frame in reversed(traceback):
            filename = frame.filename
            if filename.startswith(self.graded_root):
                return f"{os.path.basename(filename)}:{frame.lineno}"
            if filename.startswith(KIT) or filename.startswith(IMPORT_MACHINERY):
                return ""
            if filename.startswith(TORCH) and filename not in TORCH_TEXT:
                return ""
        return ""

    def finding(self) -> dict | None:
        """What the reply carries when graded code kept more than the promise allows."""
        return self.most.plain() if self.most.bytes > KEEP_LIMIT else None


#: the heaps of this process's graded ledgers in the current task, for the worker's reply
_ACTIVE: list[PythonHeap] = []


def register(heap: PythonHeap) -> None:
    _ACTIVE.append(heap)


def take_finding() -> dict | None:
    """The largest excess any graded ledger of the task saw (and forget them all)."""
    findings = [f for f in (heap.finding() for heap in _ACTIVE) if f]
    _ACTIVE.clear()
    return max(findings, key=lambda f: f["bytes"]) if findings else None
