"""A static scan of submitted source for ways around the graders' runtime guard.

The runtime guard wraps the public ``torch.distributed`` entry points inside the workers.
Code can reach the same machinery by other doors: the ``distributed_c10d`` module, methods of
a ``ProcessGroup``, torch's C bindings, ``ctypes``, ``importlib`` or ``sys.modules`` tricks, or
by reassigning attributes of torch. This module reads the source (it never imports it) and
reports each such use with its line, attributed to the function it appears in.

*Bypass* findings fail the exercises whose code (the function, the helpers it calls in the
same file, or module-level code) contains them: the guard's own doors (the grading kit,
frames, the object graph, code objects, a banned object's ``__wrapped__`` or
``__subclasses__()``) as well as torch's internals. *Memory* findings are places where memory
lives outside torch's storages (numpy, Python lists, pickles, files, threads); they fail
exercises whose memory is measured by the live ledger. *Review* findings are only reported,
for the teacher's integrity review.

A finding's reason is said in every language of the kit (its words are the kit's catalogue's
``scan:finding:...`` entries, :mod:`graders.comm.scan_rules` names them); :meth:`Finding.said`
is its line, as the feedback and the integrity notes show it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from graders.comm.scan_rules import (
    _ATTRIBUTE_CALLS,
    _BANNED_ATTRS,
    _BANNED_CALLS,
    _BANNED_METHODS,
    _BANNED_MODULES,
    _DOOR_FRAGMENT,
    _DOOR_NAMES,
    _FRAME_PREFIXES,
    _INSPECT_FRAME_CALLS,
    _MEMORY_CALLS,
    _MEMORY_MODULES,
    _REVIEW_CALLS,
    _REVIEW_MODULES,
    _SCRAMBLERS,
    _SIGNAL_CALLS,
    _SYS_NAMES,
    _TORCH_ROOTS,
)
from graders.errors import TODO_MARKER
from graders.words.messages import say
from graders.words.text import Text

BYPASS = "bypass"
MEMORY = "memory"
REVIEW = "review"


@dataclass(frozen=True)
class Finding:
    line: int
    function: str  # "" for module level
    severity: str
    reason: Text  # in every language; as a ``str``, the English
    what: str = ""  # the call or module it is about (an exercise may allow some: ``Exercise.scan_allows``)

    def said(self) -> Text:
        """``line 12 (in f): <reason>``, in every language."""
        where = say("scan:in function", function=self.function) if self.function else say("scan:module level")
        return say("scan:finding", line=self.line, where=where, reason=self.reason)

    def __str__(self) -> str:
        return str(self.said())


@dataclass(frozen=True)
class ScanResult:
    findings: tuple[Finding, ...]
    calls: dict  # function -> names it references (for transitive attribution)
    syntax_error: str = ""
    #: modules it imports relatively: of the same folder (``from . import x``: ``"x"``), or of an
    #: earlier chapter's (``from ..ch6.blocks import y``: ``"../ch6/blocks"``)
    siblings: tuple[str, ...] = ()
    untouched: frozenset[str] = frozenset()  # functions whose whole body is still the stub's TODO raise

    def for_symbol(self, symbol: str, severity: str = BYPASS) -> list[Finding]:
        """Findings that apply to ``symbol``: its own, its helpers' (a helper class's methods
        and a helper's nested functions included), and module-level ones."""
        reach: set[str] = set()
        frontier = [symbol]
        while frontier:
            name = frontier.pop()
            for scope in [s for s in self.calls if s == name or s.startswith(name + ".")] + [name]:
                if scope in reach:
                    continue
                reach.add(scope)
                frontier += [callee for callee in self.calls.get(scope, ()) if callee not in reach]
        scope = reach | {""}
        return [f for f in self.findings if f.severity == severity and f.function in scope]


class _Scanner(ast.NodeVisitor):
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.calls: dict[str, set[str]] = {}
        self.scope: list[str] = []
        self.torch_aliases: set[str] = set(_TORCH_ROOTS)
        self.sys_aliases: set[str] = {"sys"}
        self._called: set[int] = set()  # attribute nodes that are called (``model.modules()``)
        self.untouched: set[str] = set()
        self.siblings: list[str] = []

    @property
    def function(self) -> str:
        return ".".join(self.scope)

    def flag(self, node: ast.AST, severity: str, key: str, what: str = "", **values: str) -> None:
        """A finding at ``node``, its reason the catalogue's ``key`` said with ``values``."""
        reason = say(key, **values)
        self.findings.append(Finding(getattr(node, "lineno", 0), self.function, severity, reason, what))

    def flag_attribute(self, node: ast.AST, name: str) -> None:
        """``name`` (an attribute, a name imported or read by name) leads around the guard."""
        self.flag(node, BYPASS, _BANNED_ATTRS[name], name=name)

    # scopes
    def _visit_scope(self, node, name: str) -> None:
        self.scope.append(name)
        self.calls.setdefault(self.function, set())
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if _is_todo_body(node.body):
            self.untouched.add(".".join([*self.scope, node.name]))
        self._visit_scope(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._visit_scope(node, node.name)

    # imports
    def _check_module(self, node: ast.AST, module: str) -> None:
        for banned, reason in _BANNED_MODULES.items():
            if module == banned or module.startswith(banned + "."):
                self.flag(node, BYPASS, reason)
        root = module.split(".")[0]
        if root in _REVIEW_MODULES:
            self.flag(node, REVIEW, _REVIEW_MODULES[root])
        if root in _MEMORY_MODULES:
            self.flag(node, MEMORY, _MEMORY_MODULES[root], root)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)
            if alias.name.split(".")[0] == "torch":
                self.torch_aliases.add(alias.asname or alias.name.split(".")[0])
            if alias.name == "sys":
                self.sys_aliases.add(alias.asname or "sys")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:  # a sibling module of the graded folder: scanned too, by the harness
            if node.level > 1 and module:  # an earlier chapter's (the capstone's ``..ch6.blocks``)
                self.siblings.append("/".join([".."] * (node.level - 1) + module.split(".")))
            else:
                self.siblings += [module.split(".")[0]] if module else [alias.name for alias in node.names]
            self.generic_visit(node)
            return
        self._check_module(node, module)
        for alias in node.names:
            self._check_module(node, f"{module}.{alias.name}")
            if module == "sys" and alias.name in _SYS_NAMES:
                self.flag(node, BYPASS, _SYS_NAMES[alias.name])
            elif module != "sys" and _BANNED_ATTRS.get(alias.name):
                self.flag_attribute(node, alias.name)
            if module.split(".")[0] == "torch":
                self.torch_aliases.add(alias.asname or alias.name)
        self.generic_visit(node)

    # names and attributes
    def visit_Name(self, node: ast.Name) -> None:
        if self.scope:
            self.calls.setdefault(self.function, set()).add(node.id)
        if node.id == "distributed_c10d":
            self.flag_attribute(node, node.id)
        elif node.id == "__builtins__":
            self.flag(node, BYPASS, _BANNED_MODULES["builtins"])
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "modules" and id(node) not in self._called:
            self.flag(node, BYPASS, _SYS_NAMES["modules"])
        elif node.attr == "__dict__" and self._is_sys(node.value):
            self.flag(node, BYPASS, "scan:finding:sys namespace")
        elif _BANNED_ATTRS.get(node.attr):
            self.flag_attribute(node, node.attr)
        elif node.attr == "_ops" and self._rooted_in_torch(node.value):
            self.flag(node, BYPASS, _BANNED_MODULES["torch._ops"])
        elif node.attr == "__dict__" and self._rooted_in_torch(node.value):
            self.flag(node, BYPASS, "scan:finding:torch __dict__")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        key = node.slice
        if isinstance(key, ast.Constant) and key.value == "modules":
            self.flag(node, BYPASS, "scan:finding:sys.modules by name")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and node.value in _DOOR_NAMES:
            self.flag_attribute(node, node.value)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in _BANNED_CALLS and isinstance(func, ast.Name):
            self.flag(node, BYPASS, _BANNED_CALLS[name])
        if name in _BANNED_METHODS:
            self.flag(node, BYPASS, _BANNED_METHODS[name])
        if name in _INSPECT_FRAME_CALLS and isinstance(func, ast.Attribute) and _named(func.value, "inspect"):
            self.flag(node, BYPASS, "scan:finding:inspect frames", name=name)
        if name in _SIGNAL_CALLS and isinstance(func, ast.Attribute) and _named(func.value, "signal"):
            self.flag(node, BYPASS, "scan:finding:signal handler", name=name)
        if name in _REVIEW_CALLS:
            self.flag(node, REVIEW, _REVIEW_CALLS[name])
        if name in _MEMORY_CALLS:
            self.flag(node, MEMORY, _MEMORY_CALLS[name], name)
        if isinstance(func, ast.Attribute):
            self._called.add(id(func))
        if name in ("vars", *_ATTRIBUTE_CALLS) and isinstance(func, ast.Name) and node.args:
            if self._is_sys(node.args[0]):
                self.flag(node, BYPASS, "scan:finding:reads sys", name=name)
        if name in ("setattr", "delattr") and node.args and self._rooted_in_torch(node.args[0]):
            self.flag(node, BYPASS, "scan:finding:changes torch", name=name)
        if _named(func, "vars") and node.args and self._rooted_in_torch(node.args[0]):
            self.flag(node, BYPASS, "scan:finding:torch vars")
        if name in _ATTRIBUTE_CALLS and isinstance(func, ast.Name) and len(node.args) >= 2:
            self._check_attribute_name(node, node.args[1], name)
        self.generic_visit(node)

    def _check_attribute_name(self, node: ast.Call, attribute: ast.AST, call: str) -> None:
        """``getattr(x, "__closure__")`` is the door itself, and so is a name assembled from
        pieces of a dunder or frame attribute (``"__clo" + "sure__"``); ``getattr(x, name)``
        and ``getattr(self, f"layer{i}")`` are ordinary code."""
        folded = _folded(attribute)
        if isinstance(attribute, ast.Constant) and isinstance(folded, str):
            if _BANNED_ATTRS.get(folded):
                self.flag_attribute(node, folded)
            elif folded == "modules":
                self.flag(node, BYPASS, _SYS_NAMES["modules"])
            return
        parts = list(ast.walk(attribute))
        pieces = [c.value for c in parts if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        scrambled = any(isinstance(c, ast.Call) and _call_name(c) in _SCRAMBLERS for c in parts)
        scrambled |= any(isinstance(c, ast.Slice) and c.step is not None for c in parts)
        doors = any("__" in p or p.startswith(_FRAME_PREFIXES) or _DOOR_FRAGMENT.search(p) for p in pieces)
        doors |= isinstance(folded, str) and (
            folded in _BANNED_ATTRS or folded.startswith(("__", *_FRAME_PREFIXES))
        )
        if scrambled or doors:
            self.flag(node, BYPASS, "scan:finding:hidden attribute", name=call)

    def _check_target(self, target: ast.AST) -> None:
        if isinstance(target, ast.Attribute) and self._rooted_in_torch(target.value):
            self.flag(target, BYPASS, "scan:finding:reassigns torch", target=ast.unparse(target))
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._check_target(element)

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Name) and node.value.id in self.torch_aliases:
            self.torch_aliases.update(
                t.id for t in node.targets if isinstance(t, ast.Name)
            )  # library = torch
        for target in node.targets:
            self._check_target(target)
            if not self.scope and isinstance(target, ast.Name):  # _STORE = _Store(): a name for code
                used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                self.calls.setdefault(target.id, set()).update(used)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._check_target(target)
        self.generic_visit(node)

    def _is_sys(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in self.sys_aliases

    def _rooted_in_torch(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.torch_aliases


def _folded(node: ast.AST):
    """The value of an expression of constants joined by ``+`` and ``*`` (``"_" * 2 + "code"``),
    or None when it is not one."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult):
        left, right = _folded(node.left), _folded(node.right)
        if left is None or right is None:
            return None
        try:
            value = left + right if isinstance(node.op, ast.Add) else left * right
        except TypeError:
            return None
        return value if not isinstance(value, str) or len(value) < 200 else None
    return None


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _named(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_todo_body(body: list[ast.stmt]) -> bool:
    """A body that is (a docstring and) ``raise NotImplementedError("[dtlab TODO] ...")``, as generated."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise):
        return False
    exc = body[0].exc
    return (
        isinstance(exc, ast.Call)
        and isinstance(exc.func, ast.Name)
        and exc.func.id == "NotImplementedError"
        and len(exc.args) == 1
        and isinstance(exc.args[0], ast.Constant)
        and str(exc.args[0].value).startswith(TODO_MARKER)
    )


def syntax_error_said(exc: SyntaxError | ValueError) -> Text | str:
    """Where a file does not compile and why (Python's own words), ``line 10: expected ':'``."""
    line, message = getattr(exc, "lineno", None), getattr(exc, "msg", None) or str(exc)
    # the line number is a name, not a quantity: no locale grouping
    return say("scan:syntax error", line=str(line), message=message) if line else message


def scan_source(source: str) -> ScanResult:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return ScanResult((), {}, syntax_error_said(exc))
    scanner = _Scanner()
    scanner.visit(tree)
    return ScanResult(
        tuple(dict.fromkeys(scanner.findings)),
        {k: frozenset(v) for k, v in scanner.calls.items()},
        untouched=frozenset(scanner.untouched),
        siblings=tuple(dict.fromkeys(scanner.siblings)),
    )


@lru_cache(maxsize=256)
def _scan_cached(path: str, mtime_ns: int, size: int) -> ScanResult:
    return scan_source(Path(path).read_text(encoding="utf-8", errors="replace"))


def scan_file(path: Path) -> ScanResult | None:
    """Scan ``path`` (cached by modification time); ``None`` if the file does not exist."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _scan_cached(str(path), stat.st_mtime_ns, stat.st_size)
