"""What decides a chapter's grade in a student's run, as one hash: the chapter's student files,
its test files, the kit's graders and version, and the settings of the run (its profile, task
deadline and backend, as the run says them: :class:`graders.plugin.run_spec.GradingRun`).

Reading and hashing these files takes milliseconds and imports nothing heavy, which is what lets
``dtlab progress`` answer at once when nothing changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from graders import __version__
from graders.impl import KIT_ROOT, PACKAGE_HOME, Impl
from graders.plugin.run_spec import GradingRun

#: the hypothesis profile every student command grades with
PROFILE = "student"
#: what in graders/ a grading run never imports (the layers above the pytest plugin, and the copy of
#: the workspace's files an installed kit carries)
_NOT_GRADING = ("authoring", "grading", "student", "cli", "__main__.py", "_workspace")


def kit_files(chapter: str, kit_root: Path = KIT_ROOT) -> list[Path]:
    """The kit's files that decide ``chapter``'s grade: the graders' source and the chapter's tests
    (in a workspace, the graders are the installed package's)."""
    package = kit_root / "graders"
    package = package if package.is_dir() else PACKAGE_HOME / "graders"
    graders = [
        p for p in sorted(package.rglob("*.py")) if p.relative_to(package).parts[0] not in _NOT_GRADING
    ]
    tests = sorted((kit_root / "exercises" / chapter).glob("test_*.py"))
    extra = [
        kit_root / "conftest.py",
        kit_root / "pyproject.toml",
        kit_root / "pytest.ini",  # a workspace's
        kit_root / "exercises" / chapter / "conftest.py",
    ]
    return graders + tests + [p for p in extra if p.is_file()]


def student_files(impl: Impl, chapter: str) -> list[Path]:
    """The Python files of the chapter's folder in ``impl`` (the graded modules and their helpers),
    then those of the chapters it builds on (the capstone imports chapters 5 to 7), tests aside."""
    from graders.catalog import CHAPTERS

    own = sorted(p for p in impl.chapter_dir(chapter).glob("*.py") if p.is_file())
    known = CHAPTERS.get(chapter)
    for earlier in known.builds_on if known else ():
        folder = impl.root / earlier
        own += sorted(p for p in folder.glob("*.py") if p.is_file() and not p.name.startswith("test_"))
    return own


def _update(h, label: str, root: Path, paths: list[Path]) -> None:
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            data = b"<unreadable>"
        name = path.relative_to(root) if path.is_relative_to(root) else path.name
        h.update(f"{label}:{name}\0{len(data)}\0".encode() + data)


def chapter_key(run: GradingRun, chapter: str, kit_root: Path = KIT_ROOT) -> str:
    """Changes whenever anything that decides ``chapter``'s grade by ``run`` (the student's: its
    implementation, profile, deadline and backend) changes."""
    settings = f"{run.profile or PROFILE}; deadline {run.deadline}; backend {run.backend}"
    h = hashlib.sha256(f"dtlab {__version__}; {settings}\0".encode())
    _update(h, "kit", kit_root, kit_files(chapter, kit_root))
    _update(h, "student", run.impl.root, student_files(run.impl, chapter))
    return h.hexdigest()[:24]
