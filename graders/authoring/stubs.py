"""Generate the student stubs in ``exercises/`` from the reference code in ``solutions/``.

The solution files are the single source of truth. Code between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` is the answer:

* inside a function body it becomes ``raise NotImplementedError("[dtlab TODO] ...")`` naming
  the function, so the graders can report the exercise as *not started*;
* at module level or in a class body (helpers that belong to the answer) it is removed.

Everything else (imports, signatures, docstrings, given helpers) is kept verbatim.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from graders.authoring import pristine
from graders.errors import TODO_MARKER

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
HEADER = (
    "# Generated from solutions/{chapter}/{name} by `dtlab stubs`: fill in the TODOs, keep the signatures.\n"
)


class StubError(ValueError):
    pass


def _enclosing_functions(tree: ast.AST) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function, innermost last."""
    spans: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                spans.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return spans


def _in_class_body(tree: ast.AST, line: int) -> bool:
    """Whether ``line`` lies in the body of a class (outside its methods)."""
    return any(
        isinstance(node, ast.ClassDef) and node.lineno < line <= (node.end_lineno or node.lineno)
        for node in ast.walk(tree)
    )


def generate_stub(source: str, chapter: str, name: str) -> str:
    """The stub text for one solution file."""
    tree = ast.parse(source)
    functions = _enclosing_functions(tree)
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() != BEGIN:
            if line.strip() == END:
                raise StubError(f"{name}:{i + 1}: {END} without {BEGIN}")
            out.append(line)
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i].strip() != END:
            i += 1
        if i == len(lines):
            raise StubError(f"{name}:{start + 1}: {BEGIN} is never closed")
        i += 1  # skip END
        indent = line[: len(line) - len(line.lstrip())]
        owners = [f for f in functions if f[0] <= start + 1 <= f[1]] if indent else []
        if indent and not owners and not _in_class_body(tree, start + 1):
            raise StubError(f"{name}:{start + 1}: an indented solution block must sit inside a function")
        if indent and not owners and out and not out[-1].strip():
            while i < len(lines) and not lines[i].strip():
                i += 1  # a helper removed from a class body leaves one blank line, not two
        if owners:  # inside a body: a TODO; in a class body (helper methods): removed
            out.append(_todo(indent, f"{TODO_MARKER} {chapter}/{name}: implement {owners[-1][2]}"))
    text = "".join(out)
    text = re.sub(r"\n{4,}", "\n\n\n", text).rstrip("\n") + "\n"
    return HEADER.format(chapter=chapter, name=name) + text


#: ruff's line length in this project: a TODO longer than that is split over three lines
LINE_LENGTH = 110


def _todo(indent: str, message: str) -> str:
    line = f'{indent}raise NotImplementedError("{message}")\n'
    if len(line) - 1 <= LINE_LENGTH:
        return line
    return f'{indent}raise NotImplementedError(\n{indent}    "{message}"\n{indent})\n'


@dataclass
class StubDrift:
    path: Path
    diff: str


def sync(kit_root: Path, check: bool = False) -> list[StubDrift]:
    """Regenerate every stub and the digests of the stubs (``exercises/pristine.json``), or, with
    ``check``, only report the files that differ."""
    drifts: list[StubDrift] = []
    stubs: dict[str, str] = {}
    for solution in sorted((kit_root / "solutions").glob("ch*/*.py")):
        chapter = solution.parent.name
        stub_path = kit_root / "exercises" / chapter / solution.name
        wanted = generate_stub(solution.read_text(), chapter, solution.name)
        stubs[f"{chapter}/{solution.name}"] = wanted
        _write_if_drifted(kit_root, stub_path, wanted, check, drifts)
    manifest = kit_root / "exercises" / pristine.MANIFEST
    _write_if_drifted(kit_root, manifest, pristine.manifest_text(stubs), check, drifts)
    return drifts


def _write_if_drifted(kit_root: Path, path: Path, wanted: str, check: bool, drifts: list[StubDrift]) -> None:
    current = path.read_text() if path.exists() else ""
    if current == wanted:
        return
    diff = "".join(
        difflib.unified_diff(
            current.splitlines(keepends=True),
            wanted.splitlines(keepends=True),
            str(path.relative_to(kit_root)),
            "generated",
        )
    )
    drifts.append(StubDrift(path, diff))
    if not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted)


def solution_lines(source: str) -> list[str]:
    """The non-blank lines between the markers: what must never appear in a student release."""
    inside = False
    found = []
    for line in source.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif inside and line.strip():
            found.append(line.strip())
    return found
