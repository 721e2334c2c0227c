"""The architecture holds: imports only run downward, and no module grows past one job.

    cli → student → grading → authoring → plugin → chapters → world / comm / training → the facts

A chapter may use the world, the recorder and the training helpers; the world never reaches
up into the plugin or batch grading. A violation here is a design bug, not a style nit.
"""

import ast
from pathlib import Path

import pytest

from graders.impl import KIT_ROOT

PACKAGE = KIT_ROOT / "graders"
#: lowest first; a module may import from its own layer and the layers below it
LAYERS = (
    ("facts", ("catalog", "impl", "config", "errors", "words", "proc", "judge")),
    ("mechanics", ("world", "comm", "training")),
    ("chapters", ("chapters",)),
    ("plugin", ("plugin",)),
    ("authoring", ("authoring",)),
    ("grading", ("grading",)),
    ("student", ("student",)),  # dtlab progress / check
    ("cli", ("cli", "__main__", "run")),
)
MAX_LINES = 400


def _layer(module: str) -> int:
    parts = module.split(".")
    if parts == ["graders"]:
        return 0
    for rank, (_, roots) in enumerate(LAYERS):
        if parts[1] in roots:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS in tests/test_layers.py")


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
