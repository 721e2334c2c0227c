"""Worker side: import the graded implementation fresh for every task, and undo its side effects.

The graded code is loaded as the package ``dtlab_impl.<chapter>`` whose ``__path__`` is the
chapter folder of the implementation, so relative imports between a chapter's files work and
nothing is imported from ``exercises`` or ``solutions`` by name.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib
import importlib.machinery
import os
import random
import sys
import types

import numpy
import torch

from graders.impl import ImplLocation

PACKAGE = "dtlab_impl"


class MissingModule(Exception):
    def __init__(self, filename: str) -> None:
        self.filename = filename
        super().__init__(f"{filename} is missing from the graded implementation")


class _CachedSourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles each student file once per content (its bytes, not its mtime: two saves in one
    clock tick, or a copy that kept the mtime, are still told apart), keeps the code in memory.

    Every task re-executes the module from scratch; only the compilation is shared.
    """

    _codes: dict[tuple[str, bytes], types.CodeType] = {}

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        data = self.get_data(path)
        key = (path, hashlib.sha256(data).digest())
        code = self._codes.get(key)
        if code is None:
            code = compile(data, path, "exec", dont_inherit=True)
            self._codes[key] = code
        return code


#: names of modules seen in ``sys.modules`` at a purge that are not graded (never one of
#: :data:`PACKAGE`'s: a purge removes those): only names outside it can be graded modules
_baseline_modules: set[str] = set()


def purge_student_modules() -> None:
    """Forget every module of the graded implementation, so the next task imports it afresh."""
    new = set(sys.modules).difference(_baseline_modules)  # in C: of some 2,200 names, a few
    graded = {name for name in new if name == PACKAGE or name.startswith(PACKAGE + ".")}
    for name in graded:
        sys.modules.pop(name, None)
    _baseline_modules.update(new - graded)


def import_student_module(location: ImplLocation, module: str) -> types.ModuleType:
    """Import ``module`` (a file stem such as ``collectives``) of the graded chapter, fresh."""
    filename = os.path.join(location.chapter_dir, module + ".py")
    if not os.path.isfile(filename):
        raise MissingModule(module + ".py")
    chapter_pkg = f"{PACKAGE}.{location.chapter}"
    if chapter_pkg not in sys.modules:
        root = types.ModuleType(PACKAGE)
        root.__path__ = []
        sys.modules[PACKAGE] = root
        for chapter, folder in chapter_folders(location).items():
            _register_chapter(root, chapter, folder)
    name = f"{chapter_pkg}.{module}"
    return sys.modules.get(name) or importlib.import_module(name)


def chapter_folders(location: ImplLocation) -> dict[str, str]:
    """The graded chapter's folder and, when it sits in a folder of chapters (``exercises/``), the
    folders of the chapters it builds on: the capstone imports them as
    ``from ..ch6.blocks import ParallelMLP``, always from the same implementation."""
    folders = {location.chapter: location.chapter_dir}
    parent, name = os.path.split(os.path.normpath(location.chapter_dir))
    if name != location.chapter:
        return folders  # one chapter's files on their own: no siblings
    for chapter in location.builds_on:
        folder = os.path.join(parent, chapter)
        if os.path.isdir(folder):
            folders[chapter] = folder
    return folders


def _register_chapter(root: types.ModuleType, chapter: str, folder: str) -> None:
    """``dtlab_impl.<chapter>``: a package over ``folder``, its files compiled by the kit's loader."""
    if folder not in sys.path_importer_cache:
        sys.path_importer_cache[folder] = importlib.machinery.FileFinder(
            folder, (_CachedSourceLoader, [".py"])
        )
    name = f"{PACKAGE}.{chapter}"
    pkg = types.ModuleType(name)
    pkg.__path__ = [folder]
    pkg.__package__ = name
    sys.modules[name] = pkg
    root.__dict__[chapter] = pkg


def _defined_in(fn, root: str) -> bool:
    """Whether the function ``fn`` (unwrapped through ``__wrapped__``: ``@torch.no_grad()``) has
    its code in the folder ``root``."""
    seen = set()
    while fn is not None and id(fn) not in seen:
        seen.add(id(fn))
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_filename.startswith(root):
            return True
        fn = getattr(fn, "__wrapped__", None)
    return False


def foreign_code(cls: type, root: str, bases: tuple[type, ...]) -> str:
    """The dotted name of the first class of ``cls``'s MRO, or of the first method of it, that is
    neither in ``bases`` nor defined in the folder ``root``; ``""`` when there is none."""
    for klass in cls.__mro__:
        if klass in bases:
            continue
        module = sys.modules.get(klass.__module__)
        source = getattr(module, "__file__", "") or ""
        if not source.startswith(root):
            return f"{klass.__module__}.{klass.__qualname__}"
        for attr, value in vars(klass).items():
            if isinstance(value, staticmethod | classmethod):
                value = value.__func__
            if callable(value) and not isinstance(value, type) and not _defined_in(value, root):
                defined = any(attr in vars(base) and vars(base)[attr] is value for base in bases)
                if not defined:
                    owner = getattr(value, "__module__", "") or klass.__module__
                    return f"{owner}.{getattr(value, '__qualname__', attr)}"
    return ""


#: what Python itself adds to a module or class as it runs: the warnings it showed, and copyreg's
#: cache of a class's slots (made the first time an object of it is pickled: *_object collectives)
_PYTHON_CACHES = frozenset({"__warningregistry__", "__slotnames__"})


class StateGuard:
    """Snapshot of module attributes that student code might monkeypatch, restored after each task.

    Restoring keeps one test's tampering from leaking into the next; the names that had to be
    restored are reported, so the driver can flag them in the integrity report.
    """

    def __init__(self, extra_modules: tuple[types.ModuleType, ...] = ()) -> None:
        import torch.distributed
        import torch.nn
        import torch.nn.functional
        import torch.testing

        self.targets: list[tuple[str, object]] = [
            ("torch", torch),
            ("torch.distributed", torch.distributed),
            ("torch.nn", torch.nn),
            ("torch.nn.functional", torch.nn.functional),
            ("torch.testing", torch.testing),
            ("torch.Tensor", torch.Tensor),
            ("builtins", builtins),
        ]
        for module in extra_modules:  # the kit's own modules, and the classes they define
            self.targets.append((module.__name__, module))
            self.targets += [
                (f"{module.__name__}.{name}", obj)
                for name, obj in vars(module).items()
                if isinstance(obj, type) and obj.__module__ == module.__name__
            ]
        self.snapshots = {label: dict(vars(obj)) for label, obj in self.targets}
        self.cwd = os.getcwd()
        self.environ = dict(os.environ)
        self._environ_bytes = dict(getattr(os.environ, "_data", {}))

    def restore(self) -> list[str]:
        tampered: list[str] = []
        for label, obj in self.targets:
            before = self.snapshots[label]
            now = vars(obj)
            if now == before:
                continue
            for key in [k for k in now if k not in before]:
                if key in _PYTHON_CACHES:
                    continue
                if isinstance(now[key], types.ModuleType):
                    before[key] = now[key]  # a submodule imported lazily: legitimate
                    continue
                tampered.append(f"{label}.{key}")
                _delete(obj, key)
            for key, value in before.items():
                if key not in _PYTHON_CACHES and now.get(key, _MISSING) is not value:
                    tampered.append(f"{label}.{key}")
                    setattr(obj, key, value)
        if os.getcwd() != self.cwd:
            os.chdir(self.cwd)
        # the environment's bytes compared in C first; decoding every entry costs ~0.1 ms a task
        if getattr(os.environ, "_data", None) != self._environ_bytes and os.environ != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        return tampered


_MISSING = object()


def _delete(obj: object, key: str) -> None:
    try:
        delattr(obj, key)
    except (AttributeError, TypeError):
        pass


def reset_numerics(seed: int) -> None:
    """Seeds, default dtype, autograd mode and threads, as at the start of every task."""
    random.seed(seed)
    torch.default_generator.manual_seed(seed)
    numpy.random.seed(seed % 2**32)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    if torch.backends.cuda.is_built():  # graded code may have let TF32 in during the last task
        from graders.world.backend import exact_float32

        exact_float32()
