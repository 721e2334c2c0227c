"""``dtlab init DIR`` writes a student's workspace; ``dtlab upgrade`` brings a newer kit's files into
one without touching the student's modules.

A workspace holds what the kit gives a student (:mod:`graders.authoring.workspace_files`):
``exercises/chN/`` (the stubs, the public tests, the chapter's README), ``exercises/pristine.json``
(the stubs' digests: ``dtlab progress`` says "not started" for a file still equal to its stub) and
README.md; and four files of its own: ``pytest.ini`` (the kit's pytest settings), ``conftest.py``
(a guard: a ``pytest`` that cannot import the kit stops with the command to run instead of a bare
``ModuleNotFoundError``), ``.gitignore``, and :data:`~graders.impl.WORKSPACE_MARKER`, which says
which kit version wrote it and which files the kit owns there. Every ``pytest`` and ``dtlab``
command run inside the folder grades its ``exercises/`` (:data:`graders.impl.KIT_ROOT`), as in the
kit's repository.

:func:`upgrade` rewrites what the kit owns (tests, READMEs, the manifest, ``pytest.ini``), removes
the old version's files the new one no longer ships, and for each stub module of the new kit:

* absent: the new stub is written;
* still the old version's stub byte for byte (its digest in the old manifest): the new stub
  replaces it;
* otherwise it is the student's: left byte-identical, with a note for each function or class
  whose signature differs from the new stub's (:func:`graders.student.signatures.differences`).
"""

from __future__ import annotations

import json
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from graders import __version__
from graders.authoring import pristine
from graders.authoring.workspace_files import shipped
from graders.impl import WORKSPACE_MARKER
from graders.student.signatures import differences
from graders.words.messages import say

MANIFEST = f"exercises/{pristine.MANIFEST}"
PYTEST_INI = (
    "# pytest's settings in a dtlab workspace, as in the kit (dtlab upgrade rewrites this file)\n"
    "[pytest]\n"
    "addopts = --import-mode=importlib\n"
    "cache_dir = .cache/pytest\n"
    "testpaths = exercises\n"
)
GITIGNORE = "__pycache__/\n.dtlab/\n.cache/\n.hypothesis/\n.pytest_cache/\n"
#: the workspace's conftest.py, a template (``{python}``: the Python that wrote the workspace, so
#: the command to run is whole): what to do when the pytest run cannot import the kit
CONFTEST = Path(__file__).with_name("conftest.workspace.txt")


class WorkspaceError(ValueError):
    pass


@dataclass
class Report:
    folder: Path
    version: str  # the kit version that wrote the workspace now
    before: str = ""  # the kit version that had written it (an upgrade)
    written: list[str] = field(default_factory=list)  # the kit's files written or changed
    new_stubs: list[str] = field(default_factory=list)  # stub modules written (absent before)
    replaced: list[str] = field(default_factory=list)  # untouched old stubs replaced by the new ones
    kept: list[str] = field(default_factory=list)  # the student's modules, left as they were
    removed: list[str] = field(default_factory=list)  # the old kit's files the new one no longer has
    notes: list[str] = field(default_factory=list)  # signatures that differ from the new stubs'


def stub_paths(files: dict[str, Path]) -> set[str]:
    """The workspace paths of the stub modules (the student's files) among the kit's ``files``."""
    manifest = files.get(MANIFEST)
    stubs = json.loads(manifest.read_text(encoding="utf-8"))["stubs"] if manifest else {}
    return {f"exercises/{name}" for name in stubs}


def marker_text(kit_files: list[str]) -> str:
    listed = "".join(f"  {json.dumps(rel)},\n" for rel in sorted(kit_files))
    return (
        "# A dtlab workspace (dtlab init): your code goes in exercises/chN/. `dtlab upgrade` brings a\n"
        "# newer kit's tests and READMEs here and keeps your modules; it rewrites the files below.\n"
        f"kit_version = {json.dumps(__version__)}\n"
        f"kit_files = [\n{listed}]\n"
    )


def read_marker(folder: Path) -> dict:
    try:
        data = tomllib.loads((folder / WORKSPACE_MARKER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkspaceError(say("workspace:not one", folder=folder, marker=WORKSPACE_MARKER)) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise WorkspaceError(say("workspace:unreadable", path=folder / WORKSPACE_MARKER, error=exc)) from None
    return data


def _own_files(files: dict[str, Path]) -> list[str]:
    """What the kit owns in a workspace: everything it writes but the stubs and ``.gitignore``."""
    stubs = stub_paths(files)
    own = {"pytest.ini", "conftest.py", WORKSPACE_MARKER}
    return sorted({*(rel for rel in files if rel not in stubs), *own})


def conftest_text() -> str:
    return CONFTEST.read_text(encoding="utf-8").format(python=repr(sys.executable))


def _write(target: Path, data: bytes) -> bool:
    """Write ``data`` to ``target`` unless it already holds exactly that; True when written."""
    if target.is_file() and target.read_bytes() == data:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return True


def init(folder: Path, files: dict[str, Path] | None = None) -> Report:
    """Write a new workspace into ``folder`` (absent, or holding none of the files it writes)."""
    files = shipped() if files is None else files
    folder = Path(folder).absolute()
    if (folder / WORKSPACE_MARKER).exists():
        raise WorkspaceError(say("workspace:already", folder=folder))
    wanted = [*files, "pytest.ini", "conftest.py", ".gitignore", WORKSPACE_MARKER]
    there = [rel for rel in wanted if (folder / rel).exists()]
    if there:
        raise WorkspaceError(say("workspace:not empty", folder=folder, files=", ".join(there[:3])))
    report = Report(folder, __version__)
    stubs = stub_paths(files)
    for rel, source in files.items():
        _write(folder / rel, source.read_bytes())
        (report.new_stubs if rel in stubs else report.written).append(rel)
    _write(folder / "pytest.ini", PYTEST_INI.encode())
    _write(folder / "conftest.py", conftest_text().encode())
    _write(folder / ".gitignore", GITIGNORE.encode())
    _write(folder / WORKSPACE_MARKER, marker_text(_own_files(files)).encode())
    return report


def upgrade(folder: Path, files: dict[str, Path] | None = None) -> Report:
    """Bring this kit's files into the workspace ``folder``, keeping the student's modules."""
    files = shipped() if files is None else files
    folder = Path(folder).absolute()
    marker = read_marker(folder)
    old_stubs = pristine.load(folder / "exercises")  # before the new manifest is written
    report = Report(folder, __version__, before=str(marker.get("kit_version", "?")))
    stubs = stub_paths(files)
    for rel, source in files.items():
        if rel in stubs:
            _stub(folder, rel, source.read_bytes(), old_stubs, report)
        elif _write(folder / rel, source.read_bytes()):
            report.written.append(rel)
    if _write(folder / "pytest.ini", PYTEST_INI.encode()):
        report.written.append("pytest.ini")
    if _write(folder / "conftest.py", conftest_text().encode()):
        report.written.append("conftest.py")
    if not (folder / ".gitignore").exists():
        _write(folder / ".gitignore", GITIGNORE.encode())
    own = _own_files(files)
    for rel in sorted(set(marker.get("kit_files", [])) - set(own) - stubs):
        target = folder / rel
        if target.is_file() and target.resolve().is_relative_to(folder.resolve()):
            target.unlink()
            report.removed.append(rel)
    _write(folder / WORKSPACE_MARKER, marker_text(own).encode())
    return report


def _stub(folder: Path, rel: str, stub: bytes, old_stubs: dict[str, str], report: Report) -> None:
    """One stub module of the new kit: written where absent or still the old stub, else kept."""
    target = folder / rel
    if not target.exists():
        _write(target, stub)
        report.new_stubs.append(rel)
        return
    try:
        current = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        report.kept.append(rel)
        report.notes.append(say("upgrade:unreadable", path=rel, error=exc.__class__.__name__))
        return
    new = stub.decode("utf-8")
    if pristine.digest(current) == pristine.digest(new):
        return  # the new stub already
    if pristine.digest(current) == old_stubs.get(rel.split("/", 1)[1]):
        _write(target, stub)  # nothing of the student's in it
        report.replaced.append(rel)
        return
    report.kept.append(rel)
    report.notes += [f"{rel}: " + said for said in differences(current, new)]
