"""The architecture holds: wings by job, imports that only run downward, no circles, every dynamic
import declared, and no module past one job.

    cli → student → grading → authoring → misconceptions → plugin → chapters → world / comm / training
    → the facts

A chapter may use the world, the recorder and the training helpers; the world never reaches up
into the plugin or batch grading. A violation here is a design bug, not a style nit.
"""

import ast
import fnmatch
from pathlib import Path

import pytest

from graders.impl import KIT_ROOT

PACKAGE = KIT_ROOT / "graders"
#: lowest first; a module may import from its own layer and the layers below it
LAYERS = (
    ("facts", ("catalog", "impl", "config", "errors", "gradebook", "proc", "infra", "words", "judge")),
    ("mechanics", ("world", "comm", "training")),
    ("chapters", ("chapters",)),
    ("plugin", ("plugin",)),
    # the battery runs the plugin's tests; the plugin's run reaches it through its hooks (hookspecs)
    ("misconceptions", ("misconceptions",)),
    ("authoring", ("authoring",)),
    ("grading", ("grading",)),
    ("student", ("student",)),  # dtlab progress / check / watch
    ("cli", ("cli", "__main__", "run")),
)
#: the top level keeps entry points and infrastructure only; everything else lives in a wing
TOP_LEVEL = {"__init__", "__main__", "impl", "config", "errors", "gradebook", "proc", "run"}
MAX_TOP_LEVEL = 8
MAX_LINES = 400
#: a chapter's declaration (``graders/chapters/chN/chapter.py``) is a fact the catalog reads: it
#: stands in the lowest layer, beside the catalog, and imports only the catalog's shapes and bans
DECLARATIONS = "graders.chapters.*.chapter"

#: Every import whose target is chosen as the program runs: (module, function) -> (what it may load,
#: as module-name patterns or a description of files outside the kit, and why). A dynamic import
#: of a kit module obeys the layers like a static one, unless the row says ``upward`` and why.
DYNAMIC_IMPORTS = {
    ("graders.catalog.discovery", "declared_chapters"): {"loads": [DECLARATIONS]},
    ("graders.world.preload", "_import_chapter_tasks"): {
        "loads": ["graders.chapters.*.tasks", "graders.chapters.*.*.tasks"],
        "upward": "the fork server imports every chapter's worker tasks once, before it forks worlds",
    },
    ("graders.world.task", "resolve"): {
        # and the world's own probes, a module of the kit's tests (tests/world/probe_tasks.py)
        "loads": ["graders.chapters.*.tasks", "graders.chapters.*.*.tasks", "tests.world.probe_tasks"],
        "upward": "tasks are sent to the workers by reference (module:name) from the driver",
    },
    ("graders.world.task", "TaskContext.run_script"): {"loads": "the graded program, as __main__"},
    ("graders.world.graded_import", "import_student_module"): {"loads": "the graded implementation"},
    ("graders.plugin.chapter_tests", "exercise_tests"): {"loads": "a chapter's test files (exercises/chN)"},
    ("graders.grading.warm", "preload"): {"loads": ["graders.*"], "wings": lambda: _warm_wings()},
    ("graders.comm.guard", "_resolve"): {"loads": "the torch module that owns a banned name"},
}


def _warm_wings():
    from graders.grading import warm

    return warm.DRIVER_WINGS


_DYNAMIC_CALLS = {"import_module", "__import__", "spec_from_file_location", "run_path", "run_module"}


def _layer(module: str) -> int:
    if fnmatch.fnmatchcase(module, DECLARATIONS):
        return 0
    parts = module.split(".")
    if parts == ["graders"]:
        return 0
    for rank, (_, roots) in enumerate(LAYERS):
        if parts[1] in roots:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS in tests/unit/test_layers.py")


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(KIT_ROOT).with_suffix("")
        parts = list(relative.parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), path


def _imports(path: Path, module: str):
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base])
            yield base.rstrip(".")
            yield from (f"{base}.{alias.name}" for alias in node.names)


MODULES = list(_modules())
KNOWN = {name for name, _ in MODULES}


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_imports_only_run_downward(module, path):
    mine = _layer(module)
    upward = sorted(
        {
            name
            for name in _imports(path, module)
            if name.startswith("graders.")
            and name.split(".")[1] not in ("__version__",)
            and _known(name)
            and _layer(name) > mine
        }
    )
    assert not upward, f"{module} ({LAYERS[mine][0]}) imports from a higher layer: {upward}"


def _known(name: str) -> bool:
    root = name.split(".")[1]
    return any(root in roots for _, roots in LAYERS)


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_modules_stay_small(module, path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{module} has {lines} lines: split it by job (at most {MAX_LINES})"


@pytest.mark.parametrize("module", sorted(n for n in KNOWN if fnmatch.fnmatchcase(n, DECLARATIONS)))
def test_a_chapter_declaration_imports_only_the_catalog(module):
    path = dict(MODULES)[module]
    kit = {name for name in _imports(path, module) if name.startswith("graders")}
    others = sorted(n for n in kit if not n.startswith(("graders.catalog.bans", "graders.catalog.entries")))
    assert not others, f"{module} imports {others}: a declaration names exercises, parts and bans only"


def test_the_top_level_keeps_entry_points_and_infrastructure_only():
    top = {path.stem for path in PACKAGE.glob("*.py")}
    assert top == TOP_LEVEL, f"graders/ top level: {sorted(top)}; move the others into a wing"
    assert len(top) <= MAX_TOP_LEVEL


def _graph() -> dict[str, set[str]]:
    """Module -> the kit's modules it imports (static imports, wherever they stand)."""
    graph = {}
    for module, path in MODULES:
        targets = set()
        for name in _imports(path, module):
            while name and name not in KNOWN:
                name = name.rpartition(".")[0]
            if name and name != module and name != "graders":
                targets.add(name)
        graph[module] = targets
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles():
    assert _circles(_graph()) == [], "modules that import each other: split by job or move the shared part"


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _dynamic_sites() -> set[tuple[str, str]]:
    """(module, function) of every call that imports by a name chosen at run time."""
    sites = set()
    for module, path in MODULES:
        tree = ast.parse(path.read_text())
        for owner, node in _calls_with_owner(tree):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _DYNAMIC_CALLS and not (node.args and isinstance(node.args[0], ast.Constant)):
                sites.add((module, owner))
    return sites


def _calls_with_owner(node: ast.AST, owner: str = ""):
    """Every call under ``node``, with the function it stands in (``Class.method`` for a method)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not owner:
                name = child.name
            elif isinstance(node, ast.ClassDef) and not isinstance(child, ast.ClassDef):
                name = f"{owner}.{child.name}"
            else:
                name = owner  # a function or class inside a function belongs to it
            yield from _calls_with_owner(child, name)
            continue
        if isinstance(child, ast.Call):
            yield owner, child
        yield from _calls_with_owner(child, owner)


def test_every_dynamic_import_is_declared():
    sites = _dynamic_sites()
    undeclared = sorted(sites - set(DYNAMIC_IMPORTS))
    assert not undeclared, f"dynamic imports not declared in DYNAMIC_IMPORTS: {undeclared}"
    stale = sorted(set(DYNAMIC_IMPORTS) - sites)
    assert not stale, f"declared dynamic imports that no longer exist: {stale}"


@pytest.mark.parametrize("site", list(DYNAMIC_IMPORTS), ids=[".".join(s) for s in DYNAMIC_IMPORTS])
def test_declared_dynamic_imports_obey_the_layers(site):
    module, _ = site
    declared = DYNAMIC_IMPORTS[site]
    patterns = declared["loads"]
    if isinstance(patterns, str):
        return  # files outside the kit: graded code, test files, torch
    for pattern in patterns:
        if not pattern.startswith("graders."):  # a module of the kit's own tests, outside the package
            assert (KIT_ROOT / (pattern.replace(".", "/") + ".py")).is_file(), pattern
            continue
        matched = [name for name in KNOWN if fnmatch.fnmatchcase(name, pattern)]
        assert matched, f"{module} declares it loads {pattern!r}, which matches no module"
        if "wings" in declared:  # it loads only the wings it names, each at or below its own layer
            wings = declared["wings"]()
            assert all(_layer(f"graders.{wing}") <= _layer(module) for wing in wings), wings
            continue
        higher = sorted(name for name in matched if _layer(name) > _layer(module))
        assert not higher or declared.get("upward"), f"{module} reaches up to {higher} without saying why"
