"""Worker side: bans that hold at the object, not at the name, and the doors around them.

A name can be rebound, but every route to a banned object — ``torch.distributed.all_reduce``,
``distributed_c10d.all_reduce``, ``dist.all_reduce.__wrapped__``,
``torch.optim.Optimizer.__subclasses__()``, a module's ``__dict__``, ``gc.get_objects()`` —
ends at the same function objects. So while graded code runs, :class:`ObjectBans` swaps the
code of every Python function behind a banned name (a function and its ``__wrapped__`` chain,
a class's methods, every function of a banned module tree) for a refusal. The refusal asks
who is calling: from graded code (the nearest frame outside torch is in the graded folder) it
records the attempt in the trace and raises :class:`BannedCallError`, even if the student
catches it; from the kit or from torch itself it runs the original code.

:class:`Doors` closes what graded code has no business opening, with an audit hook that cannot
be removed: reading frames (``sys._getframe``, ``inspect.currentframe``, a traceback's
``tb_frame``, a generator's ``gi_frame``), walking every object (``gc.get_objects`` and its
siblings), tracing (``sys.settrace``), building functions or code objects by hand, rewriting
a function's ``__code__``, native code (``ctypes``), and importing the grading kit. Each is a
banned call of the exercise, with an integrity line.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import inspect
import os
import sys
import time
import traceback
import types
import warnings
from collections.abc import Callable

import torch

from graders.catalog import DOORS
from graders.errors import BannedCallError

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
#: modules that hand graded code what it asked for (frames, native calls): the requester is their caller
_PASS_THROUGH = (inspect.__file__, os.path.dirname(importlib.util.find_spec("ctypes").origin) + os.sep)
#: and those that hand back what ``sys._getframe`` gave them (``traceback.walk_stack``)
_FRAME_PASS_THROUGH = (*_PASS_THROUGH, traceback.__file__)
_KIT_PACKAGE = "graders"
_GRADED_PACKAGE = "dtlab_impl"


class _Refusal:
    """What a banned function runs while graded code runs (a constant in its swapped code)."""

    def __init__(self, bans: ObjectBans, dotted: str, original: Callable) -> None:
        self.bans, self.dotted, self.original = bans, dotted, original

    def __call__(self, args: tuple, kwargs: dict):
        if self.bans.called_from_graded_code():
            self.bans.refuse(self.dotted)
        return self.original(*args, **kwargs)


_PLACEHOLDER = "__dtlab_refusal__"
_REFUSAL_FILE = "<dtlab refusal>"
_templates: dict[int, types.CodeType] = {}


def _refusing_code(free_vars: int, refusal: _Refusal) -> types.CodeType:
    """Code that calls ``refusal(args, kwargs)``, with ``free_vars`` free variables so that it
    can replace the code of a closure (a function's code and closure must agree in size)."""
    template = _templates.get(free_vars)
    if template is None:
        names = [f"_free{i}" for i in range(free_vars)]
        lines = ["def _outer():", *(f"    {n} = None" for n in names), "    def _refuse(*args, **kwargs):"]
        if names:
            lines.append("        " + ", ".join(names) + ",")
        lines += [f"        return {_PLACEHOLDER!r}(args, kwargs)", "    return _refuse"]
        namespace: dict = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # "str is not callable": it is replaced
            exec(compile("\n".join(lines), _REFUSAL_FILE, "exec"), namespace)
        template = _templates[free_vars] = next(
            c for c in namespace["_outer"].__code__.co_consts if isinstance(c, types.CodeType)
        )
    consts = tuple(refusal if c == _PLACEHOLDER else c for c in template.co_consts)
    return template.replace(co_consts=consts)


def _clone(fn: types.FunctionType) -> types.FunctionType:
    """A second function object with ``fn``'s original code, globals, defaults and closure."""
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__kwdefaults__ = fn.__kwdefaults__
    twin.__qualname__ = fn.__qualname__
    return twin


def _functions_of(obj) -> list[types.FunctionType]:
    """The Python functions behind ``obj``: itself and its ``__wrapped__`` chain, or the methods
    a class defines (static and class methods, properties)."""
    if isinstance(obj, type):
        found = []
        for value in vars(obj).values():
            if isinstance(value, staticmethod | classmethod):
                value = value.__func__
            if isinstance(value, property):
                found += [f for f in (value.fget, value.fset, value.fdel) if f is not None]
            elif isinstance(value, types.FunctionType):
                found += _functions_of(value)
        return found
    chain = []
    while isinstance(obj, types.FunctionType) and obj not in chain:
        chain.append(obj)
        obj = getattr(obj, "__wrapped__", None)
    return chain


class ObjectBans:
    """The banned objects of the exercise being graded, refused from graded code until lifted."""

    def __init__(self, recorder) -> None:
        self.recorder = recorder
        self._swapped: list[tuple[types.FunctionType, types.CodeType, types.CodeType]] = []
        self._shadowed: list[tuple[object, str, object]] = []
        self._prepared: dict[tuple[str, int], tuple[object, list]] = {}

    def called_from_graded_code(self) -> bool:
        """Whether the nearest caller outside torch (and outside the refusals) is graded code."""
        frame = sys._getframe(1)
        while frame is not None:
            filename = frame.f_code.co_filename
            if not (filename.startswith(_TORCH_DIR) or filename in (__file__, _REFUSAL_FILE)):
                return is_graded_frame(frame, self.recorder.site_root)
            frame = frame.f_back
        return False

    def refuse(self, dotted: str, why: str = "") -> None:
        if not why and dotted in DOORS:
            why = f"it {DOORS[dotted]}; {_WHY}"
        recorder = self.recorder
        site = recorder._student_site()
        recorder.events.append(("banned:" + dotted, 0, -1, (), time.perf_counter_ns(), site))
        raise BannedCallError(dotted, recorder.exercise, site, why)

    def ban(self, dotted: str, obj=None) -> None:
        """Refuse ``obj`` (default: what ``dotted`` names) from graded code, by whatever route it
        is reached: Python functions and classes at the object, anything else (a builtin) by
        shadowing it where it is bound."""
        owner, attr = None, ""
        if obj is None:
            owner, attr, obj = _resolve(dotted)
            if obj is None:
                return
        swaps = self._swaps_for(dotted, obj)
        for fn, _, refusing in swaps:
            fn.__code__ = refusing
        self._swapped += swaps
        if not swaps and owner is not None and callable(obj):
            self._shadow(dotted, owner, attr, obj)

    def _swaps_for(self, dotted: str, obj) -> list[tuple[types.FunctionType, types.CodeType, types.CodeType]]:
        """``(function, its code, its refusing code)`` for every Python function behind ``obj``,
        made once per process: a task's bans are then only assignments."""
        key = (dotted, id(obj))
        swaps = self._prepared.get(key)
        if swaps is None or swaps[0] is not obj:
            made = []
            for fn in _functions_of(obj):
                refusal = _Refusal(self, dotted, _clone(fn))
                made.append((fn, fn.__code__, _refusing_code(len(fn.__code__.co_freevars), refusal)))
            swaps = self._prepared[key] = (obj, made)
        return list(swaps[1])

    def _shadow(self, dotted: str, owner, attr: str, original) -> None:
        bans = self

        def stand_in(*args, **kwargs):
            if bans.called_from_graded_code():
                bans.refuse(dotted)
            return original(*args, **kwargs)

        owners = [owner]
        defining = sys.modules.get(getattr(original, "__module__", "") or "")
        if defining is not None and defining is not owner and getattr(defining, attr, None) is original:
            owners.append(defining)
        for target in owners:
            self._shadowed.append((target, attr, original))
            setattr(target, attr, stand_in)

    def ban_tree(self, tree: str) -> None:
        """Refuse every function and class a loaded module of ``tree`` defines."""
        prefix = tree + "."
        modules = [
            (name, module)
            for name, module in list(sys.modules.items())
            if module is not None and (name == tree or name.startswith(prefix))
        ]
        for name, module in modules:
            for value in list(vars(module).values()):
                defined_here = getattr(value, "__module__", None) == name
                if defined_here and isinstance(value, type | types.FunctionType):
                    self.ban(tree + ".*", value)

    def lift(self) -> None:
        while self._swapped:
            fn, code, _ = self._swapped.pop()
            fn.__code__ = code
        while self._shadowed:
            owner, attr, original = self._shadowed.pop()
            setattr(owner, attr, original)


def _resolve(dotted: str) -> tuple[object, str, object]:
    """``(owner, attribute, object)`` for a dotted name whose head is an importable module
    (``torch.nn.parallel.DistributedDataParallel``, ``torch.Tensor.tolist``); Nones if absent."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:-1]:
                owner = getattr(owner, part)
            return owner, parts[-1], getattr(owner, parts[-1])
        except AttributeError:
            return None, "", None
    return None, "", None


# -- the doors: an audit hook, and the import of the kit ----------------------------------------

#: audited events graded code may not cause -> their name in ``catalog.DOORS``
_DOOR_EVENTS = {
    name: name
    for name in (
        "sys._getframe",
        "sys._current_frames",
        "sys.settrace",
        "sys.setprofile",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "function.__new__",
        "code.__new__",
    )
}
_FRAME_ATTRIBUTES = {"tb_frame", "gi_frame", "cr_frame", "ag_frame"}
_WHY = "graded code may not reach the grader's frames, objects or code"


class Doors:
    """Refuses the doors above to graded code while a recorder is active (one per worker)."""

    def __init__(self, recorder) -> None:
        self.recorder = recorder
        self._inside = False
        self._import = builtins.__import__
        self._import_module = importlib.import_module

    def install(self) -> None:
        """Add the audit hook (for the life of the process: audit hooks cannot be removed)."""
        sys.addaudithook(self._audit)

    def _audit(self, event: str, args: tuple) -> None:
        if not self.recorder.active or self._inside:
            return
        if event in _DOOR_EVENTS:
            door = _DOOR_EVENTS[event]
        elif event == "object.__getattr__" and len(args) > 1 and args[1] in _FRAME_ATTRIBUTES:
            door = "frame"
        elif event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__":
            door = "function.__code__"
        elif event.startswith("ctypes."):
            door = "ctypes"
        else:
            return
        self._inside = True
        try:
            graded = self._requested_by_graded_code(event)
        finally:
            self._inside = False
        if graded:
            self.recorder.bans.refuse(door, f"it {DOORS[door]}; {_WHY}")

    def _requested_by_graded_code(self, event: str) -> bool:
        """Whether the frame that caused the event (through ``inspect``, ``ctypes`` or, for a
        frame, ``traceback``, which hand graded code what it asked for) is graded code."""
        passing = _FRAME_PASS_THROUGH if event == "sys._getframe" else _PASS_THROUGH
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith(passing):
            frame = frame.f_back
        return frame is not None and is_graded_frame(frame, self.recorder.site_root)

    # -- the kit is not importable from graded code --------------------------------------------
    def open(self) -> None:
        """While graded code runs: ``import graders...`` from a graded module is refused."""
        builtins.__import__ = self._guarded_import
        importlib.import_module = self._guarded_import_module

    def close(self) -> None:
        builtins.__import__ = self._import
        importlib.import_module = self._import_module

    def _guarded_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and _is_kit(name) and _is_graded((globals or {}).get("__name__", "")):
            self._refuse_kit(name)
        return self._import(name, globals, locals, fromlist, level)

    def _guarded_import_module(self, name, package=None):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if not name.startswith(".") and _is_kit(name) and _is_graded(caller):
            self._refuse_kit(name)
        return self._import_module(name, package)

    def _refuse_kit(self, name: str) -> None:
        self.recorder.bans.refuse(_KIT_PACKAGE + ".*", f"it {DOORS['graders.*']} ({name})")


def is_graded_frame(frame, root: str) -> bool:
    """A frame of graded code: its file is in the graded folder, or it runs code the graded
    code compiled itself (``exec``), in a graded module's globals."""
    if root and frame.f_code.co_filename.startswith(root):
        return True
    return frame.f_code.co_filename.startswith("<") and _is_graded(frame.f_globals.get("__name__", ""))


def _is_kit(name: str) -> bool:
    return name == _KIT_PACKAGE or name.startswith(_KIT_PACKAGE + ".")


def _is_graded(module_name: str) -> bool:
    return module_name == _GRADED_PACKAGE or module_name.startswith(_GRADED_PACKAGE + ".")
