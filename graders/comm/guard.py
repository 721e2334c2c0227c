"""Worker side: bans that hold at the object, not at the name.

A name can be rebound, but every route to a banned object — ``torch.distributed.all_reduce``,
``distributed_c10d.all_reduce``, ``dist.all_reduce.__wrapped__``,
``torch.optim.Optimizer.__subclasses__()``, a module's ``__dict__``, ``gc.get_objects()`` —
ends at the same function objects. So while graded code runs, :class:`ObjectBans` swaps the
code of every Python function behind a banned name (a function and its ``__wrapped__`` chain,
a class's methods, every function of a banned module tree) for a refusal
(:func:`swap_code`: the same mechanism traces ``torch.distributed``, see
:mod:`graders.comm.recorder`). The refusal asks who is behind the call
(:mod:`graders.comm.callers`): graded code anywhere below, or a thread it started, and the
attempt is recorded in the trace and refused with :class:`BannedCallError`, even if the
student catches it; the kit, or torch on the kit's behalf, runs the original code.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import types
import warnings
from collections.abc import Callable

from graders.catalog import DOORS
from graders.comm.callers import graded_request
from graders.errors import BannedCallError

#: why a door is refused, after what it does
WHY_DOORS = "graded code may not reach the grader's frames, objects or code"
#: the file name of every swapped-in code object: not graded code, not torch's
SWAPPED_FILE = "<dtlab guard>"


class _Refusal:
    """What a banned function runs while graded code runs (a constant in its swapped code)."""

    def __init__(self, bans: ObjectBans, dotted: str, original: Callable) -> None:
        self.bans, self.dotted, self.original = bans, dotted, original

    def __call__(self, args: tuple, kwargs: dict):
        if self.bans.graded_request(sys._getframe(2)):
            self.bans.refuse(self.dotted)
        return self.original(*args, **kwargs)


_PLACEHOLDER = "__dtlab_handler__"
_templates: dict[int, types.CodeType] = {}


def swap_code(fn: types.FunctionType, handler: Callable[[tuple, dict], object]) -> types.CodeType:
    """Code for ``fn`` that calls ``handler(args, kwargs)``: ``fn.__code__ = swap_code(fn, h)``
    makes every route to ``fn`` reach ``h`` (the code keeps ``fn``'s number of free variables,
    as a function's code and closure must agree in size)."""
    free_vars = len(fn.__code__.co_freevars)
    template = _templates.get(free_vars)
    if template is None:
        names = [f"_free{i}" for i in range(free_vars)]
        lines = ["def _outer():", *(f"    {n} = None" for n in names), "    def _swapped(*args, **kwargs):"]
        if names:
            lines.append("        " + ", ".join(names) + ",")
        lines += [f"        return {_PLACEHOLDER!r}(args, kwargs)", "    return _swapped"]
        namespace: dict = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # "str is not callable": it is replaced
            exec(compile("\n".join(lines), SWAPPED_FILE, "exec"), namespace)
        template = _templates[free_vars] = next(
            c for c in namespace["_outer"].__code__.co_consts if isinstance(c, types.CodeType)
        )
    consts = tuple(handler if c == _PLACEHOLDER else c for c in template.co_consts)
    return template.replace(co_consts=consts)


def clone(fn: types.FunctionType) -> types.FunctionType:
    """A second function object with ``fn``'s original code, globals, defaults and closure."""
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__kwdefaults__ = fn.__kwdefaults__
    twin.__qualname__ = fn.__qualname__
    return twin


def _defined_by(fn, cls: type) -> bool:
    """Whether ``fn`` is a Python function ``cls`` itself defines, not one its dictionary holds from
    elsewhere: an enum class holds ``Enum.__new__``, whose code every enum of the program runs."""
    return isinstance(fn, types.FunctionType) and fn.__qualname__.startswith(cls.__qualname__ + ".")


def _functions_of(obj) -> list[types.FunctionType]:
    """The Python functions behind ``obj``: itself and its ``__wrapped__`` chain, or the methods
    a class defines (static and class methods, properties)."""
    if isinstance(obj, type):
        found = []
        for value in vars(obj).values():
            if isinstance(value, staticmethod | classmethod):
                value = value.__func__
            if isinstance(value, property):
                found += [f for f in (value.fget, value.fset, value.fdel) if _defined_by(f, obj)]
            elif _defined_by(value, obj):
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
        #: shadows bound for the life of the process (:meth:`keep`): the owner, its namespace (a
        #: live view), the name and the stand-in
        self._kept: list[tuple[object, object, str, object]] = []
        self._prepared: dict[tuple[str, int], tuple[object, list]] = {}
        self._definitions: dict[tuple[str, str, int, int], tuple[object, list]] = {}
        #: trees -> (the names sys.modules held, the (module name, tree) pairs among them)
        self._tree_members: dict[tuple[str, ...], tuple[set[str], list[tuple[str, str]]]] = {}

    def graded_request(self, frame) -> bool:
        """Whether graded code is behind the call running in ``frame`` (see :mod:`.callers`)."""
        return graded_request(frame, self.recorder.site_root, skip_files=(__file__, SWAPPED_FILE))

    def refuses(self, frame) -> bool:
        """Whether a stand-in refuses the call running in ``frame``: graded code is behind it and
        the recorder records (a kept stand-in stays bound between student blocks)."""
        return self.recorder.active and self.graded_request(frame)

    def refuse(self, dotted: str, why: str = "", *, site: str = "", detail: tuple[int, ...] = ()) -> None:
        """Record the refusal in the trace (``detail``: numbers the report names, in the event's
        ``nbytes`` and ``group``: a signal's number and target) and raise it in graded code."""
        if not why and dotted in DOORS:
            why = f"it {DOORS[dotted]}; {WHY_DOORS}"
        recorder = self.recorder
        site = site or recorder._student_site()
        number, target = (detail[0], detail[1:]) if detail else (0, ())
        recorder.events.append(("banned:" + dotted, number, -1, target, time.perf_counter_ns(), site))
        raise BannedCallError(dotted, recorder.exercise, site, why)

    def ban(self, dotted: str, obj=None, *, label: str = "") -> None:
        """Refuse ``obj`` (default: what ``dotted`` names) from graded code, by whatever route it
        is reached: Python functions and classes at the object, anything else (a builtin) by
        shadowing it where it is bound. A refusal is recorded as ``label`` (a door of
        ``catalog.DOORS``) when given, else as ``dotted``."""
        owner, attr = None, ""
        if obj is None:
            owner, attr, obj = _resolve(dotted)
            if obj is None:
                return
        dotted = label or dotted
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
                made.append((fn, fn.__code__, swap_code(fn, _Refusal(self, dotted, clone(fn)))))
            swaps = self._prepared[key] = (obj, made)
        return list(swaps[1])

    def _shadow(self, dotted: str, owner, attr: str, original) -> None:
        bans = self

        def stand_in(*args, **kwargs):
            if bans.refuses(sys._getframe(1)):
                bans.refuse(dotted)
            return original(*args, **kwargs)

        owners = [owner]
        defining = sys.modules.get(getattr(original, "__module__", None) or "")
        if defining is not None and defining is not owner and getattr(defining, attr, None) is original:
            owners.append(defining)
        for target in owners:
            self._shadowed.append((target, attr, original))
            setattr(target, attr, stand_in)

    def ban_op_namespaces(self, names: tuple[str, ...], label: str) -> None:
        """Refuse the operators of ``torch.ops.<name>`` for each of ``names`` to graded code, as the
        door ``label``: the namespaces torch already made are shadowed by a stand-in that refuses
        their attributes, and ``torch._ops._get_packet`` (where a fresh namespace finds its
        operators) refuses their qualified names."""
        import torch._ops

        bans = self
        for name in names:
            original = getattr(torch.ops, name)
            self._shadowed.append((torch.ops, name, original))
            setattr(torch.ops, name, _RefusingNamespace(self, label, original))
        get_packet = torch._ops._get_packet

        def guarded_get_packet(qualified_name, *args, **kwargs):
            namespace = str(qualified_name).partition("::")[0]
            if namespace in names and bans.refuses(sys._getframe(1)):
                bans.refuse(label)
            return get_packet(qualified_name, *args, **kwargs)

        self._shadowed.append((torch._ops, "_get_packet", get_packet))
        torch._ops._get_packet = guarded_get_packet

    def ban_methods(self, classes, names, label: str) -> None:
        """Refuse the methods ``names`` of ``classes`` (C++ classes too: each is shadowed where a
        class defines it) to graded code, as the door ``label``."""
        for cls in classes:
            for name in sorted(names):
                if name in vars(cls):
                    self._shadow(label, cls, name, vars(cls)[name])

    def ban_trees(self, trees: tuple[str, ...]) -> list[str]:
        """Refuse every function and class a loaded module of each of ``trees`` defines (as
        ``"<tree>.*"``); the names of those modules. The trees' modules are listed again only
        when the names in ``sys.modules`` changed (:meth:`_tree_modules`); what a module defines
        is read again only when its namespace changed size."""
        loaded: list[str] = []
        for name, tree in self._tree_modules(trees):
            loaded.append(name)
            module = sys.modules[name]
            if module is None:
                continue
            swaps = self._module_swaps(tree + ".*", name, module)
            for fn, _, refusing in swaps:
                fn.__code__ = refusing
            self._swapped += swaps
        return loaded

    def _tree_modules(self, trees: tuple[str, ...]) -> list[tuple[str, str]]:
        """``(name, tree)`` of every module of ``trees`` in ``sys.modules``, in its order. The
        names are read again only when the names ``sys.modules`` holds changed (a set compared
        in C, where the walk is a loop in Python over some 2,200 names)."""
        if not trees:
            return []
        found = self._tree_members.get(trees)
        if found is not None and found[0] == sys.modules.keys():
            return found[1]
        names = list(sys.modules)
        common = os.path.commonprefix(trees)  # most names are ruled out by it alone
        members = []
        for name in names:
            if name.startswith(common):
                tree = next((t for t in trees if name == t or name.startswith(t + ".")), None)
                if tree is not None:
                    members.append((name, tree))
        self._tree_members[trees] = (set(names), members)
        return members

    def _module_swaps(self, dotted: str, name: str, module) -> list:
        """The swaps (:meth:`_swaps_for`) of every function and class ``module`` (loaded as
        ``name``) defines itself, refused as ``dotted``; read again when its namespace changed
        size."""
        namespace = vars(module)
        key = (dotted, name, id(module), len(namespace))
        found = self._definitions.get(key)
        if found is None or found[0] is not module:
            swaps = []
            for value in list(namespace.values()):
                defined_here = getattr(value, "__module__", None) == name
                if defined_here and isinstance(value, type | types.FunctionType):
                    swaps += self._swaps_for(dotted, value)
            found = self._definitions[key] = (module, swaps)
        return found[1]

    def keep(self, shadow: Callable[[], None]) -> None:
        """Run ``shadow`` (calls that shadow objects: the doors every task closes) once, and keep
        what it binds for the life of the process instead of binding it at every task: a stand-in
        refuses graded code only while the recorder records, as a task's own stand-ins are bound
        only then. :meth:`check_kept` binds again what graded code unbound."""
        start = len(self._shadowed)
        shadow()
        for owner, attr, _ in self._shadowed[start:]:
            self._kept.append((owner, vars(owner), attr, vars(owner).get(attr)))
        del self._shadowed[start:]

    def check_kept(self) -> list[str]:
        """Bind again every kept stand-in that graded code unbound or replaced; their names."""
        rebound = []
        for owner, namespace, attr, stand_in in self._kept:
            if namespace.get(attr) is not stand_in:
                setattr(owner, attr, stand_in)
                rebound.append(f"{getattr(owner, '__qualname__', type(owner).__name__)}.{attr}")
        return rebound

    def lift(self) -> None:
        """Undo every ban, the last first (a function banned twice gets its own code back); the
        kept ones (:meth:`keep`) stay."""
        for fn, code, _ in reversed(self._swapped):
            fn.__code__ = code
        self._swapped.clear()
        for owner, attr, original in reversed(self._shadowed):
            setattr(owner, attr, original)
        self._shadowed.clear()


class _RefusingNamespace:
    """Stands in for an operator namespace (``torch.ops._c10d_functional``) while graded code runs:
    its attributes are refused to graded code and handed to the kit."""

    def __init__(self, bans: ObjectBans, label: str, original) -> None:
        object.__setattr__(self, "_dtlab_bans", (bans, label, original))

    def __getattr__(self, name: str):
        bans, label, original = object.__getattribute__(self, "_dtlab_bans")
        if bans.refuses(sys._getframe(1)):
            bans.refuse(label)
        return getattr(original, name)


#: dotted name -> how many of its parts name the module it is found in (``_resolve``)
_module_parts: dict[str, int] = {}


def _resolve(dotted: str) -> tuple[object, str, object]:
    """``(owner, attribute, object)`` for a dotted name whose head is an importable module
    (``torch.nn.parallel.DistributedDataParallel``, ``torch.Tensor.tolist``); Nones if absent.

    Its longest importable head is looked for once per process: every task bans the same names,
    and a failed import searches the package's folders again each time (a name that was not a
    module stays one that is not)."""
    parts = dotted.split(".")
    for cut in range(_module_parts.get(dotted, len(parts) - 1), 0, -1):
        head = ".".join(parts[:cut])
        owner = sys.modules.get(head)
        try:
            owner = owner if owner is not None else importlib.import_module(head)
        except ImportError:
            continue
        _module_parts[dotted] = cut
        try:
            for part in parts[cut:-1]:
                owner = getattr(owner, part)
            return owner, parts[-1], getattr(owner, parts[-1])
        except AttributeError:
            return None, "", None
    return None, "", None
