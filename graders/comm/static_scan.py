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
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from graders.errors import TODO_MARKER

BYPASS = "bypass"
MEMORY = "memory"
REVIEW = "review"

_BANNED_MODULES = {
    "ctypes": "loads native code (ctypes)",
    "cffi": "loads native code (cffi)",
    "importlib": "imports modules dynamically (importlib)",
    "builtins": "touches Python's builtins",
    "torch.distributed.distributed_c10d": "reaches torch.distributed's internals (distributed_c10d)",
    "torch._C": "calls torch's C bindings directly",
    "torch.distributed._functional_collectives": "uses functional collectives behind the guard",
    "torch.utils._python_dispatch": "steps out of the kit's dispatch modes (torch.utils._python_dispatch)",
    "torch._ops": "reaches torch's operator registry (torch._ops)",
    "graders": "imports the grading kit, whose references are the answers",
}
#: where memory lives outside torch's storages, which the live ledger counts
_MEMORY_MODULES = {
    "numpy": "keeps data in numpy arrays",
    "pickle": "serialises tensors (pickle)",
    "marshal": "serialises data (marshal)",
    "shelve": "stores data in a shelf",
    "array": "keeps data in Python arrays",
    "mmap": "maps memory by hand (mmap)",
    "threading": "runs code in another thread",
    "_thread": "runs code in another thread",
    "concurrent": "runs code in another thread or process",
}
_MEMORY_CALLS = {
    "tolist": "copies a tensor into Python lists (.tolist())",
    "numpy": "views a tensor as a numpy array (.numpy())",
    "tobytes": "copies data into bytes (.tobytes())",
    "frombuffer": "builds a tensor over a foreign buffer (frombuffer)",
    "UntypedStorage": "allocates a storage by hand",
    "TypedStorage": "allocates a storage by hand",
    "open": "writes data to files",
    "item": "copies tensor elements into Python numbers (.item())",
    "BytesIO": "keeps data in a bytes buffer (io.BytesIO)",
    "StringIO": "keeps data in a string buffer (io.StringIO)",
    "save": "serialises tensors (save)",
    "load": "deserialises tensors (load)",
}
_REVIEW_MODULES = {
    "gc": "walks live objects (gc)",
    "inspect": "inspects frames (inspect)",
    "subprocess": "starts processes (subprocess)",
    "socket": "opens sockets",
    "multiprocessing": "starts processes (multiprocessing)",
}
#: ProcessGroup methods, by attribute syntax (their torch.distributed namesakes are recorded)
_PG_METHODS = "allreduce allgather alltoall alltoall_base _allgather_base _reduce_scatter_base recv_anysource"
_PG_METHODS = (*_PG_METHODS.split(), "allreduce_coalesced", "allgather_coalesced")
_BANNED_ATTRS = {
    "distributed_c10d": "reaches torch.distributed's internals (distributed_c10d)",
    "_get_default_group": "reaches the default ProcessGroup object",
    "_world": "reaches torch.distributed's global state",
    "_C": "calls torch's C bindings directly",
    "_functional_collectives": "uses functional collectives behind the guard",
    "_c10d_functional": "calls collective operators behind the guard (torch.ops._c10d_functional)",
    "_c10d_functional_autograd": "calls collective operators behind the guard (torch.ops._c10d_functional)",
    "c10d": "calls collective operators behind the guard (torch.ops.c10d)",
    "_OpNamespace": "builds an operator namespace by hand (torch._ops._OpNamespace)",
    "_get_packet": "looks up operators by hand (torch._ops._get_packet)",
    **{name: f"calls a ProcessGroup method ({name})" for name in _PG_METHODS},
    "modules": None,  # only as sys.modules, handled below
    # the doors around the guard: what a banned object or the grader's state is one step from
    "__wrapped__": "unwraps a function to reach what it wraps (__wrapped__)",
    "__subclasses__": "walks a class's subclasses (__subclasses__)",
    "__globals__": "reads a function's module globals (__globals__)",
    "__closure__": "reads a function's closure (__closure__)",
    "cell_contents": "reads a closure cell (cell_contents)",
    "__code__": "reads or rewrites a function's code (__code__)",
    "f_back": "walks up the call stack (f_back)",
    "f_locals": "reads a frame's variables (f_locals)",
    "f_globals": "reads a frame's globals (f_globals)",
    "f_builtins": "reads a frame's builtins (f_builtins)",
    "tb_frame": "reads a frame through a traceback (tb_frame)",
    "gi_frame": "reads a generator's frame (gi_frame)",
    "cr_frame": "reads a coroutine's frame (cr_frame)",
    "ag_frame": "reads a generator's frame (ag_frame)",
    "_python_dispatch": "steps out of the kit's dispatch modes (torch.utils._python_dispatch)",
}
_BANNED_CALLS = {
    "__import__": "imports modules dynamically (__import__)",
    "eval": "evaluates code (eval)",
    "exec": "executes code (exec)",
    "compile": "compiles code (compile)",
}
#: calls of these names, on any object, go around the guard
_BANNED_METHODS = {
    "_getframe": "reads the interpreter's frames (sys._getframe)",
    "_current_frames": "reads the interpreter's frames (sys._current_frames)",
    "currentframe": "reads the interpreter's frames (inspect.currentframe)",
    "getouterframes": "reads the interpreter's frames (inspect.getouterframes)",
    "getinnerframes": "reads the interpreter's frames (inspect.getinnerframes)",
    "walk_stack": "reads the interpreter's frames (traceback.walk_stack)",
    "walk_tb": "reads the interpreter's frames (traceback.walk_tb)",
    "settrace": "traces the interpreter (settrace)",
    "setprofile": "traces the interpreter (setprofile)",
    "get_objects": "walks every live object (gc.get_objects)",
    "get_referrers": "walks live objects (gc.get_referrers)",
    "get_referents": "walks live objects (gc.get_referents)",
    "FunctionType": "builds a function from a code object (types.FunctionType)",
    "CodeType": "builds a code object (types.CodeType)",
    "attrgetter": "reads attributes by name (operator.attrgetter), the doors' names included",
    "methodcaller": "calls methods by name (operator.methodcaller)",
    "getclosurevars": "reads a function's closure (inspect.getclosurevars)",
    "get_group_store": "takes the store every rank shares (ProcessGroup.get_group_store)",
}
#: attribute names that are doors wherever they appear as a string (handed to any attribute reader)
_DOOR_NAMES = frozenset(
    name for name in _BANNED_ATTRS if name.startswith(("__", "f_", "tb_", "gi_", "cr_", "ag_", "cell_"))
)
#: ``inspect.<name>()`` reads frames (elsewhere, ``stack`` is just ``torch.stack``)
_INSPECT_FRAME_CALLS = {"stack", "trace"}
#: attribute names read by a computed or constant ``getattr``, ``setattr``, ``delattr`` or ``vars``
_ATTRIBUTE_CALLS = ("getattr", "setattr", "delattr", "hasattr")
_FRAME_PREFIXES = ("f_", "tb_", "gi_", "cr_", "ag_")
#: pieces of the doors' names, and the calls that hide a name (``chr(95) * 2 + "closure"``)
_DOOR_FRAGMENT = re.compile(r"frame|closure|globals|c10d|dispatch|wrapped|subclass|builtin|import|recorder")
_SCRAMBLERS = {"chr", "join", "replace", "format", "decode", "encode", "reversed", "bytes", "fromhex"}
_REVIEW_CALLS = {"_exit": "ends the process (os._exit)"}
#: ``signal.<name>()``: a handler is handed the interrupted frame, the grader's
_SIGNAL_CALLS = {"signal", "setitimer", "alarm"}
_TORCH_ROOTS = {"torch"}


@dataclass(frozen=True)
class Finding:
    line: int
    function: str  # "" for module level
    severity: str
    reason: str

    def __str__(self) -> str:
        where = f"in {self.function}" if self.function else "at module level"
        return f"line {self.line} ({where}): {self.reason}"


@dataclass(frozen=True)
class ScanResult:
    findings: tuple[Finding, ...]
    calls: dict  # function -> names it references (for transitive attribution)
    syntax_error: str = ""
    siblings: tuple[str, ...] = ()  # modules of the same folder it imports (``from . import x``)
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
        self.untouched: set[str] = set()
        self.siblings: list[str] = []

    @property
    def function(self) -> str:
        return ".".join(self.scope)

    def flag(self, node: ast.AST, severity: str, reason: str) -> None:
        self.findings.append(Finding(getattr(node, "lineno", 0), self.function, severity, reason))

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
            self.flag(node, MEMORY, _MEMORY_MODULES[root])

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)
            if alias.name.split(".")[0] == "torch":
                self.torch_aliases.add(alias.asname or alias.name.split(".")[0])
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:  # a sibling module of the graded folder: scanned too, by the harness
            self.siblings += [module.split(".")[0]] if module else [alias.name for alias in node.names]
            self.generic_visit(node)
            return
        self._check_module(node, module)
        for alias in node.names:
            self._check_module(node, f"{module}.{alias.name}")
            if module.split(".")[0] == "torch":
                self.torch_aliases.add(alias.asname or alias.name)
        self.generic_visit(node)

    # names and attributes
    def visit_Name(self, node: ast.Name) -> None:
        if self.scope:
            self.calls.setdefault(self.function, set()).add(node.id)
        if node.id in ("distributed_c10d", "__builtins__"):
            self.flag(node, BYPASS, _BANNED_ATTRS.get(node.id, "touches Python's builtins"))
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys":
            self.flag(node, BYPASS, "edits the module table (sys.modules)")
        elif _BANNED_ATTRS.get(node.attr):
            self.flag(node, BYPASS, _BANNED_ATTRS[node.attr])
        elif node.attr == "_ops" and self._rooted_in_torch(node.value):
            self.flag(node, BYPASS, "reaches torch's operator registry (torch._ops)")
        elif node.attr == "__dict__" and self._rooted_in_torch(node.value):
            self.flag(node, BYPASS, "edits torch's namespace through __dict__")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and node.value in _DOOR_NAMES:
            self.flag(node, BYPASS, _BANNED_ATTRS[node.value])

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in _BANNED_CALLS and isinstance(func, ast.Name):
            self.flag(node, BYPASS, _BANNED_CALLS[name])
        if name in _BANNED_METHODS:
            self.flag(node, BYPASS, _BANNED_METHODS[name])
        if name in _INSPECT_FRAME_CALLS and isinstance(func, ast.Attribute) and _named(func.value, "inspect"):
            self.flag(node, BYPASS, f"reads the interpreter's frames (inspect.{name})")
        if name in _SIGNAL_CALLS and isinstance(func, ast.Attribute) and _named(func.value, "signal"):
            self.flag(node, BYPASS, f"installs a signal handler, which is handed a frame (signal.{name})")
        if name in _REVIEW_CALLS:
            self.flag(node, REVIEW, _REVIEW_CALLS[name])
        if name in _MEMORY_CALLS:
            self.flag(node, MEMORY, _MEMORY_CALLS[name])
        if name in ("setattr", "delattr") and node.args and self._rooted_in_torch(node.args[0]):
            self.flag(node, BYPASS, f"changes torch with {name}()")
        if _named(func, "vars") and node.args and self._rooted_in_torch(node.args[0]):
            self.flag(node, BYPASS, "reads torch's namespace through vars()")
        if name in _ATTRIBUTE_CALLS and isinstance(func, ast.Name) and len(node.args) >= 2:
            self._check_attribute_name(node, node.args[1], name)
        self.generic_visit(node)

    def _check_attribute_name(self, node: ast.Call, attribute: ast.AST, call: str) -> None:
        """``getattr(x, "__closure__")`` is the door itself, and so is a name assembled from
        pieces of a dunder or frame attribute (``"__clo" + "sure__"``); ``getattr(x, name)``
        and ``getattr(self, f"layer{i}")`` are ordinary code."""
        if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
            reason = _BANNED_ATTRS.get(attribute.value)
            if reason:
                self.flag(node, BYPASS, reason)
            return
        parts = list(ast.walk(attribute))
        pieces = [c.value for c in parts if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        scrambled = any(isinstance(c, ast.Call) and _call_name(c) in _SCRAMBLERS for c in parts)
        scrambled |= any(isinstance(c, ast.Slice) and c.step is not None for c in parts)
        doors = any("__" in p or p.startswith(_FRAME_PREFIXES) or _DOOR_FRAGMENT.search(p) for p in pieces)
        if scrambled or doors:
            self.flag(node, BYPASS, f"assembles the name of a hidden attribute for {call}()")

    def _check_target(self, target: ast.AST) -> None:
        if isinstance(target, ast.Attribute) and self._rooted_in_torch(target.value):
            self.flag(target, BYPASS, f"reassigns {ast.unparse(target)}, an attribute of torch")
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._check_target(element)

    def visit_Assign(self, node: ast.Assign) -> None:
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

    def _rooted_in_torch(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.torch_aliases


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


def scan_source(source: str) -> ScanResult:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return ScanResult((), {}, f"line {exc.lineno}: {exc.msg}")
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
