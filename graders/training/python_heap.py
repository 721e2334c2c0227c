"""Python data that graded code keeps: the memory torch's storages do not hold.

The live ledger (:mod:`graders.training.live_memory`) counts tensor storages. Data can also be
kept as Python objects: lists from ``.tolist()``, numbers from ``.item()`` or ``float()``. In a
graded ledger's window :mod:`tracemalloc` traces the Python heap, and at the end of every phase
:class:`PythonHeap` counts the blocks *born in that phase* and still alive that graded code made
and that hold data (:func:`_holds_data`: numbers, and arrays such as a list's slots).

Who made a block: the nearest of the :data:`FRAMES` innermost frames that is graded code, the
kit's or torch's. A standard-library or third-party helper, and torch's text of a tensor, work
for their caller; the kit's modes and torch's own bookkeeping are not graded code's data.

Some data is no block of those sizes, or no block at all: bytes, bytearrays, strings and arrays of
any size, mmaps, files written; :mod:`graders.training.kept_data` finds those.

The promise is the same wherever it applies: across a phase boundary, graded code keeps at most
:data:`KEEP_LIMIT` bytes of new Python data (a returned loss, a step counter, a small table);
from importing and building the graded object (:data:`SETUP_PHASES`), at most
:data:`SETUP_KEEP_LIMIT` (modules, closures and a table per parameter tensor are objects too).
Data kept between steps, or between forward and backward, as Python numbers costs 32 bytes an
element (a float and its list slot), eight times its float32 tensor; the failure names the line
that made most of it. Converting a tensor with ``.item()``, ``float()`` or ``.tolist()`` is fine
where nothing is kept.

A threshold alone would be a door on a small model: a whole gradient packed into bytes fits in
2 KiB when the model does. What holds is the scale: an honest implementation keeps O(1) Python
data, a hoard O(model), so every exercise with this promise is graded on a model whose parameters
dwarf both allowances (``tests/chapters/test_heap_scale.py``).
"""

from __future__ import annotations

import ast
import functools
import gc
import os
import tracemalloc
from dataclasses import dataclass

import torch

from graders.training.kept_data import KeptData, frames_of, traced_blocks

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
#: phases that import and build the graded object: counted against their own, larger allowance,
#: since modules, closures and a graded object's bookkeeping are objects too
SETUP_PHASES = frozenset({"setup", "construct"})
#: bytes of new Python data graded code may keep from importing and building (a table per
#: parameter tensor passes; a copy per element of a model that dwarfs it does not)
SETUP_KEEP_LIMIT = 16 * 1024
#: the heap is traced in the examples whose model's parameters outweigh :data:`KEEP_LIMIT` this
#: many times: there a hoard O(model) stands out from honest O(1) data, while on a smaller model
#: the allowance itself would be the door. Every part with this promise has such an explicit
#: example (``tests/chapters/test_heap_scale.py``), and tracing costs every allocation.
HEAP_SCALE = 16


def definition_lines(path: str) -> frozenset[int]:
    """The lines of ``path`` that define a function or a class (their decorators and signature
    included): importing a module makes its code objects, functions and classes there."""
    try:
        stamp = os.stat(path)
    except OSError:
        return frozenset()
    return _definition_lines(path, stamp.st_mtime_ns, stamp.st_size)


def _remembered(fn):
    """``fn`` of one argument, worked out once for the same argument (an unbounded cache, for
    one phase's count: many blocks share their frames, and their files)."""
    found: dict = {}

    def remembered(key):
        value = found.get(key)
        if value is None:
            value = found[key] = fn(key)
        return value

    return remembered


@functools.lru_cache(maxsize=64)
def _definition_lines(path: str, _mtime: int, _size: int) -> frozenset[int]:
    try:
        with open(path, encoding="utf-8") as file:
            tree = ast.parse(file.read())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and _builds_nothing(node):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            body = node.body[0].lineno if node.body else node.lineno + 1
            lines.update(range(first, max(body, node.lineno + 1)))
    return frozenset(lines)


def _builds_nothing(node) -> bool:
    """Whether a definition's own expressions (defaults, decorators, bases) are plain names and
    constants: a default like ``[0.0] * n`` would make data at the definition's line."""
    parts = list(node.decorator_list)
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *(k.value for k in node.keywords)]
    else:
        parts += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    plain = (ast.Name, ast.Attribute, ast.Constant, ast.Call, ast.keyword, ast.expr_context)
    for part in parts:
        for sub in ast.walk(part):
            if not isinstance(sub, plain):
                return False
            if isinstance(sub, ast.Call) and any(
                not isinstance(a, ast.Name | ast.Attribute | ast.Constant) for a in sub.args
            ):
                return False
    return True


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
        self.most = Kept()  # across the window's phases
        self.most_in_setup = Kept()  # across importing and building the graded object
        self._started_here = False
        self._held: list[float] | None = None
        #: data outside the size rules; it notes the files graded code writes for the heap's life
        self.data = KeptData(self.graded_root)
        self.phase = ""

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
        self.data.phase_started()
        self._held = _hold_spare_floats()

    def stop(self) -> None:
        if self._started_here:
            tracemalloc.stop()
            self._started_here = False
            self._held = None

    def close(self) -> None:
        """The ledger's life ends: stop tracing, and stop noting the files graded code writes."""
        self.stop()
        self.data.stop()

    def entering(self, phase: str, step: int) -> None:
        """``phase`` of ``step`` begins: trace it if it is in the window."""
        self.phase = phase
        if phase in SETUP_PHASES:
            inside = step == 0
        elif self.window == "steady":
            inside = step == 1
        else:
            inside = phase in self.window
        if inside and not self._started_here:
            self.start()
        elif not inside:
            self.stop()

    def phase_ended(self, phase: str, step: int) -> None:
        """Count what ``phase`` of ``step`` kept, then start the next phase's count."""
        if not self._started_here:
            return
        gc.collect(1)  # young cycles (an autograd graph's, say) are garbage, not kept
        # floats graded code let go of wait in the free list, still traced as its: take them
        # out, and count them as what they are, garbage
        freed = _take_spare_floats()
        line_of = _remembered(self._graded_line)

        data_blocks: list[tuple[tuple, int]] = []  # graded code's blocks that hold data
        unsized = 0  # graded code's blocks the size rules leave out: data objects among them?
        for _domain, size, frames, *_ in traced_blocks():
            if line_of(frames):
                if _holds_data(size):
                    data_blocks.append((frames, size))
                else:
                    unsized += size
        limit = SETUP_KEEP_LIMIT if phase in SETUP_PHASES else KEEP_LIMIT
        if phase in SETUP_PHASES and sum(size for _, size in data_blocks) > limit:
            # what a def or class statement makes is code (parsing the file to tell is dear:
            # only when it matters)
            definitions = _remembered(definition_lines)  # a file's once, not a stat for every block
            code = _remembered(functools.partial(self._graded_line, definitions=definitions))
            data_blocks = [(frames, size) for frames, size in data_blocks if code(frames)]
        by_line: dict[str, int] = {}
        for frames, size in data_blocks:
            line = line_of(frames)
            by_line[line] = by_line.get(line, 0) + size
        for number in freed:
            made = frames_of(number)
            line = line_of(made) if made is not None else ""
            if line:
                by_line[line] = by_line.get(line, 0) - FLOAT_BLOCK
        # the data objects' scan walks the whole heap: needed only when what it can add (their
        # blocks are among ``unsized``; an mmap's or a file's memory is no traced block) could
        # take the phase past its allowance
        if sum(by_line.values()) + unsized > limit or self.data.outside_the_heap():
            for line, size in self.data.kept(line_of).items():
                by_line[line] = by_line.get(line, 0) + size
        kept = sum(by_line.values())
        most = self.most_in_setup if phase in SETUP_PHASES else self.most
        if kept > most.bytes:
            most.bytes, most.phase, most.step, most.where = kept, phase, step, max(by_line, key=by_line.get)
        del freed
        self._next_phase()

    def _graded_line(self, frames: tuple, *, definitions=None) -> str:
        """``file:line`` of the graded code that made a block (its raw ``frames``, innermost
        first), or "" if it is not graded code's: the nearest frame that is graded code, the
        kit's or torch's decides. The kit's modes and hooks run inside graded calls, and torch
        keeps its own Python bookkeeping (an optimizer's state dicts, autograd's nodes): neither
        is graded code's data. A standard-library or third-party helper, and torch's text of a
        tensor, work for their caller; with no owner among the frames recorded (an import's deep
        stack, say), it is nobody's. ``definitions``: a file's lines that define a function or a
        class (:func:`definition_lines`), where what they make is code, nobody's data."""
        for filename, lineno in frames:
            if filename.startswith(self.graded_root):
                if definitions is not None and lineno in definitions(filename):
                    return ""  # a function or a class being defined: code, not data
                return f"{os.path.basename(filename)}:{lineno}"
            if filename.startswith(KIT) or filename.startswith(IMPORT_MACHINERY):
                return ""
            if filename.startswith(TORCH) and filename not in TORCH_TEXT:
                return ""
        return ""

    def finding(self) -> dict | None:
        """What the reply carries when graded code kept more than the promise allows: in the
        window, :data:`KEEP_LIMIT`; from importing and building, :data:`SETUP_KEEP_LIMIT`."""
        if self.most.bytes > KEEP_LIMIT:
            return self.most.plain() | {"limit": KEEP_LIMIT}
        if self.most_in_setup.bytes > SETUP_KEEP_LIMIT:
            return self.most_in_setup.plain() | {"limit": SETUP_KEEP_LIMIT}
        return None


#: the heaps of this process's graded ledgers in the current task, for the worker's reply
_ACTIVE: list[PythonHeap] = []
#: whether the current task's example is one the heap is traced in (:data:`HEAP_SCALE`)
_TRACED_EXAMPLE = [True]


def task_starts(case) -> None:
    """A task begins on ``case``: trace its graded ledgers' heaps if its model is large enough
    (a case that does not say its ``parameter_bytes`` is traced)."""
    size = getattr(case, "parameter_bytes", None)
    _TRACED_EXAMPLE[0] = not isinstance(size, int) or size >= HEAP_SCALE * KEEP_LIMIT


def traced_example() -> bool:
    return _TRACED_EXAMPLE[0]


def register(heap: PythonHeap) -> None:
    _ACTIVE.append(heap)


def graded_code_starts() -> None:
    """Graded code is about to run (its module is imported next): what the kit allocated so far
    in a traced setup phase is the kit's, so forget it (a smaller count, and a cheaper one)."""
    for heap in _ACTIVE:
        if heap._started_here and heap.phase in SETUP_PHASES:
            tracemalloc.clear_traces()


def take_finding() -> dict | None:
    """The largest excess any graded ledger of the task saw (and forget them all)."""
    findings = [f for f in (heap.finding() for heap in _ACTIVE) if f]
    for heap in _ACTIVE:
        heap.close()
    _ACTIVE.clear()
    return max(findings, key=lambda f: f["bytes"]) if findings else None
