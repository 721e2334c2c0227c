"""What the kit gives a student's workspace (``dtlab init``): the chapters' stubs, public tests and
READMEs, the stubs' manifest (``exercises/pristine.json``) and the workspace's README.

They are the release's files under ``exercises/`` (:func:`graders.authoring.release.included`: no
solution, no hidden grader), read from the kit's folder in a checkout or a release, and from
``graders/_workspace/`` where the kit is installed from its wheel (``setup.py`` copies them there
with :func:`pack` when it builds the wheel).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from graders.authoring import release
from graders.impl import PACKAGE_HOME

#: the workspace's files inside the installed package: ``graders/_workspace/``
PACKAGED = "_workspace"
#: the workspace's README.md (English and Vietnamese), in the kit
README = "graders/authoring/README.workspace.md"


def from_kit(kit_root: Path) -> dict[str, Path]:
    """``{path in the workspace: file}`` of a kit's folder (a checkout, a release, an sdist)."""
    files = {
        rel: kit_root / rel
        for rel in release.kit_files(kit_root)
        if rel.startswith("exercises/") and release.included(rel)
    }
    files["README.md"] = kit_root / README
    return dict(sorted(files.items()))


def from_package(package_dir: Path) -> dict[str, Path]:
    """``{path in the workspace: file}`` of an installed package's copy (empty when it has none)."""
    root = package_dir / PACKAGED
    found = (p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.relative_to(root).parts)
    return {p.relative_to(root).as_posix(): p for p in sorted(found) if p.suffix != ".pyc"}


def shipped() -> dict[str, Path]:
    """The files this kit gives a workspace: the installed package's copy, else the kit's folder."""
    return from_package(PACKAGE_HOME / "graders") or from_kit(PACKAGE_HOME)


def pack(kit_root: Path, package_dir: Path) -> list[str]:
    """Copy :func:`from_kit` of ``kit_root`` into ``package_dir/_workspace`` (the wheel's build)."""
    files = from_kit(kit_root)
    for rel, source in files.items():
        target = package_dir / PACKAGED / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return list(files)
