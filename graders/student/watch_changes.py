"""Which exercises a save changed: a fingerprint of the code each exercise can run.

An exercise's code (``catalog.Exercise``: its ``symbol`` in its ``module``) is

* the definition of its symbol, and every top-level function or class it names, transitively;
* the module's other top-level statements (imports, constants, ...), which all of the module's
  exercises share, with whatever top-level definitions those name;
* whole, the modules of the same folder it imports (``from . import helpers``), and theirs.

Fingerprints are digests of the syntax tree, so a save that changes only comments or layout
changes no fingerprint, and a save that changes one function changes only the exercises that
can reach it. Code that can reach names by strings (``globals()``, ``eval``, ``sys.modules``,
...) ties its exercise to its whole module. A module that does not compile has no fingerprints:
its exercises wait (:attr:`Snapshot.broken`).
"""

from __future__ import annotations

import ast
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from graders.catalog import Exercise
from graders.comm.static_scan import syntax_error_said

#: names through which code reaches other top-level names without naming them
_DYNAMIC = frozenset(
    {"globals", "vars", "locals", "eval", "exec", "__import__", "importlib", "sys", "__name__"}
)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class _Module:
    """One parsed module of the chapter folder."""

    shared: str = ""  # digest material of the top-level statements that are not definitions
    definitions: dict[str, list[ast.AST]] = field(default_factory=dict)
    roots: set[str] = field(default_factory=set)  # names the shared statements use
    siblings: tuple[str, ...] = ()
    whole: str = ""  # digest of the whole tree
    error: str = ""  # why it does not compile
    missing: bool = False


def _parse(path: Path, folder: str = "") -> _Module:
    """``path`` parsed; ``folder``: where it lies relative to the chapter folder (``"../ch6/"``
    for a module of an earlier chapter), which its own relative imports are resolved from."""
    try:
        source = path.read_bytes()
    except FileNotFoundError:
        return _Module(missing=True)
    except OSError as exc:
        return _Module(error=f"{type(exc).__name__}: {exc}")
    try:
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError) as exc:
        return _Module(error=syntax_error_said(exc))
    module = _Module(whole=_digest(ast.dump(tree)))
    shared = []
    for node in tree.body:
        if isinstance(node, _DEFINITIONS):
            module.definitions.setdefault(node.name, []).append(node)
        else:
            shared.append(ast.dump(node))
            module.roots |= _names(node)
    module.shared = "\n".join(shared)
    siblings = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
            siblings += [folder + name for name in names]
        elif isinstance(node, ast.ImportFrom) and node.level == 2 and node.module and "." in node.module:
            chapter, stem = node.module.split(".")[:2]  # from ..ch6.blocks import ...: an earlier chapter
            siblings.append(f"../{chapter}/{stem}")
    module.siblings = tuple(dict.fromkeys(siblings))
    return module


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _reach(module: _Module, symbol: str) -> str:
    """Digest material of what ``symbol`` can run in ``module``."""
    seen: set[str] = set()
    todo = [symbol, *module.roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in module.definitions.get(name, ()):
            todo += _names(node) - seen
    if seen & _DYNAMIC:
        return module.whole
    parts = [module.shared] + [ast.dump(n) for name in sorted(seen) for n in module.definitions.get(name, ())]
    return "\n".join(parts)


@dataclass(frozen=True)
class Snapshot:
    """The chapter folder's code at one moment."""

    fingerprints: dict[str, str]  # exercise id -> digest of its code
    broken: dict[str, tuple[str, tuple[str, ...]]]  # file name -> (why it does not compile, exercises)


def snapshot(chapter_dir: Path, exercises: list[Exercise]) -> Snapshot:
    """Fingerprint every exercise of ``exercises`` from the files in ``chapter_dir``."""
    parsed: dict[str, _Module] = {}

    def module(stem: str) -> _Module:
        if stem not in parsed:
            folder = stem.rpartition("/")[0]
            parsed[stem] = _parse(chapter_dir / f"{stem}.py", folder + "/" if folder else "")
        return parsed[stem]

    fingerprints: dict[str, str] = {}
    broken: dict[str, tuple[str, list[str]]] = {}
    for entry in exercises:
        own = module(entry.module)
        if own.missing:
            fingerprints[entry.id] = "missing"
            continue
        stems, todo, material = [], list(own.siblings), []
        while todo:
            stem = todo.pop(0)
            if stem in stems or stem == entry.module:
                continue
            stems.append(stem)
            todo += module(stem).siblings
        failing = [s for s in [entry.module, *stems] if module(s).error]
        if failing:
            for stem in failing:
                broken.setdefault(f"{stem}.py", (module(stem).error, []))[1].append(entry.id)
            continue
        material.append(_reach(own, entry.symbol))
        material += [f"{stem}:{'missing' if module(stem).missing else module(stem).whole}" for stem in stems]
        fingerprints[entry.id] = _digest("\n".join(material))
    return Snapshot(fingerprints, {name: (why, tuple(ids)) for name, (why, ids) in broken.items()})


def content_digest(path: Path) -> str:
    """Digest of a file's bytes ("" when it cannot be read): a save that rewrote the same bytes
    changed nothing."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def file_states(chapter_dir: Path, builds_on: tuple[str, ...] = ()) -> dict[str, tuple[int, int, int]]:
    """``name -> (mtime_ns, size, inode)`` of the chapter folder's code files (the graders aside),
    and of the chapters it builds on (``"../ch6/blocks.py"``): a cheap poll; only when it changes
    are the files read."""
    states = {}
    for prefix, folder in [("", chapter_dir), *((f"../{c}/", chapter_dir.parent / c) for c in builds_on)]:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if not name.endswith(".py") or name.startswith("test_") or name == "conftest.py":
                continue
            try:
                info = entry.stat()
            except OSError:
                continue
            states[prefix + name] = (info.st_mtime_ns, info.st_size, info.st_ino)
    return states
