"""The signatures a stub module declares, and where a student's module no longer matches them.

``dtlab upgrade`` keeps the student's modules as they are; when a newer kit's stub declares a
function, a method or a class otherwise than the student's file does (the graders call the
stub's), it says so, naming both (:func:`differences`).
"""

from __future__ import annotations

import ast

from graders.words.messages import say


def _signature(node: ast.AST) -> str:
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in (*node.bases, *node.keywords))
        return f"class {node.name}({bases})" if bases else f"class {node.name}"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"


_DECLARED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def signatures(source: str) -> dict[str, str] | None:
    """``{name: signature}`` of a module's functions and classes and of its classes' methods
    (``Class.method``); None when the module does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found = {}
    for node in tree.body:
        if isinstance(node, _DECLARED):
            found[node.name] = _signature(node)
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}.{member.name}"] = _signature(member)
    return found


def differences(student: str, stub: str) -> list[str]:
    """What the student's module declares otherwise than ``stub`` does, one line each: a name the
    stub declares that the module lacks or declares with another signature."""
    mine, wanted = signatures(student), signatures(stub)
    if wanted is None:
        return []
    if mine is None:
        return [say("upgrade:does not parse")]
    said = []
    for name, signature in wanted.items():
        owner = name.partition(".")[0]
        if "." in name and owner not in mine:
            continue  # the class is missing: said once, for the class
        if name not in mine:
            said.append(say("upgrade:missing", name=name, signature=signature))
        elif mine[name] != signature:
            said.append(say("upgrade:differs", name=name, yours=mine[name], signature=signature))
    return said
