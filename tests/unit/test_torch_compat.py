"""The one place that knows where the torch releases of the range differ
(:mod:`graders.infra.torch_compat`): every private torch name the kit reads is listed there and
resolves on the installed torch; the kit's lists name what a release of the range added."""

import ast
import importlib
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import torch._C._distributed_c10d as c10d
import torch.distributed as dist

from graders import catalog
from graders.impl import KIT_ROOT
from graders.infra import torch_compat

SCANNED = ("graders", "solutions")


def _private_prefix(dotted: str) -> str | None:
    """The name up to its last private part and one more (``torch._C._len_x``,
    ``torch._C.StorageBase``), or None when no part is private."""
    parts = dotted.split(".")
    private = [i for i, p in enumerate(parts) if p.startswith("_") and not p.startswith("__")]
    return ".".join(parts[: private[-1] + 2]) if private else None


def _chain(node: ast.AST) -> tuple[str, list[str]] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return (node.id, parts[::-1]) if isinstance(node, ast.Name) else None


def private_torch_names(source: str) -> set[str]:
    """The private torch names a module reads: through ``import``/``from`` and attribute chains
    on names bound to torch modules (``c10d = dist.distributed_c10d`` included)."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    bound[a.asname or "torch"] = a.name if a.asname else "torch"
                    names.append(a.name)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            for a in node.names:
                bound[a.asname or a.name] = f"{node.module}.{a.name}"
                names.append(f"{node.module}.{a.name}")
    for node in ast.walk(tree):  # aliases made by assignment, once the imports are known
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            chain = _chain(node.value)
            if chain and chain[0] in bound:
                bound[node.targets[0].id] = ".".join([bound[chain[0]], *chain[1]])
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):  # whole chains only: torch._C._len_x, not also torch._C
        chain = _chain(node) if isinstance(node, ast.Attribute) and id(node) not in inner else None
        if chain and chain[0] in bound:
            names.append(".".join([bound[chain[0]], *chain[1]]))
    return {p for p in map(_private_prefix, names) if p}


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part)
        return found
    raise ImportError(dotted)


def test_the_scan_sees_imports_chains_and_aliases():
    source = (
        "import torch\nimport torch._C._distributed_c10d as _c10d\nimport torch.distributed as dist\n"
        "from torch.utils._python_dispatch import _pop_mode\n"
        "c10d = dist.distributed_c10d\nc10d._world.pg_map\ntorch._C._len_x()\ntorch.Tensor.__add__\n"
        "torch._C.StorageBase.resize_\n"
    )
    assert private_torch_names(source) == {
        "torch._C._distributed_c10d",
        "torch.utils._python_dispatch._pop_mode",
        "torch.distributed.distributed_c10d._world.pg_map",
        "torch._C._len_x",
        "torch._C.StorageBase",
    }


def test_every_private_torch_name_the_kit_reads_is_listed():
    unlisted = {}
    for root in SCANNED:
        for path in sorted((KIT_ROOT / root).rglob("*.py")):
            for name in private_torch_names(path.read_text()) - set(torch_compat.PRIVATE):
                unlisted.setdefault(name, []).append(str(path.relative_to(KIT_ROOT)))
    assert not unlisted, f"list these in graders/infra/torch_compat.PRIVATE (and why): {unlisted}"


@pytest.mark.parametrize("name", sorted(torch_compat.PRIVATE))
def test_every_listed_private_name_resolves_on_this_torch(name):
    assert _resolve(name) is not None


def test_this_torch_is_of_the_range():
    assert torch_compat.supported(), torch.__version__
    assert torch_compat.series("2.15.0+cpu") == (2, 15) and torch_compat.series("nightly") == (0, 0)
    assert not torch_compat.supported("2.12.1") and not torch_compat.supported("2.16.0")


def test_what_a_release_added_is_named_in_the_kits_lists():
    """A collective 2.14 added is a collective (traced, and banned where collectives are); a
    process group's method that 2.14 added is behind the process-group door."""
    for name, since in torch_compat.ADDED.items():
        owner, _, attr = name.rpartition(".")
        present = hasattr(getattr(c10d, owner) if owner else dist, attr)
        assert present == (torch_compat.series(torch.__version__) >= since), name
        if owner:
            assert attr in catalog.PROCESS_GROUP_METHODS, name
    assert {"gather_single", "gather_into_tensor"} <= catalog.COLLECTIVES


def test_the_range_module_is_the_installers():
    text = (KIT_ROOT / "scripts" / "install_torch.py").read_text()
    assert "SUPPORTED = ((2, 13), (2, 16))" in text
    assert Path(torch_compat.__file__).parent.name == "infra"


def _frame(path: str, name: str):
    return SimpleNamespace(f_code=SimpleNamespace(co_filename=path, co_name=name))


def test_only_torchs_own_renaming_of_its_own_wrappers_passes_the_code_doors():
    """torch 2.15's ``@torch.no_grad()`` renames the wrapper it made (in its own file); code of
    any other file, or made by any other function, still meets the doors."""
    torch_dir = os.path.dirname(torch.__file__)
    contextlib_py = os.path.join(torch_dir, "utils", "_contextlib.py")
    renames = _frame(contextlib_py, "_set_stack_frame_name")
    assert torch_compat.torch_remakes_its_own_code(renames, contextlib_py)
    assert not torch_compat.torch_remakes_its_own_code(renames, "/work/exercises/ch3/optimizers.py")
    other = _frame(contextlib_py, "context_decorator")
    assert not torch_compat.torch_remakes_its_own_code(other, contextlib_py)
    graded = "/work/exercises/ch3/utils/_contextlib.py"
    assert not torch_compat.torch_remakes_its_own_code(_frame(graded, "_set_stack_frame_name"), graded)
