"""The student release: the repository a student clones.

It holds the stubs, the public graders (``exercises/chN/test_*.py``), the ``graders`` package,
the public fixtures, the set-up script and the docs, and nothing of what only the teacher has:
``solutions/``, the hidden graders (``hidden/``), the mutants, the sample submissions (some of
them are complete answers), the kit's own tests, benchmarks and CI.

:func:`build` copies the kit's tracked files through :func:`included`, then
:func:`find_leaks` proves that no line of any reference solution's answer (the code between
``### BEGIN SOLUTION`` and ``### END SOLUTION``) appears anywhere in the result;
:func:`publish` does both aside and moves the release into place only when nothing leaks.
``dtlab release --github-classroom`` adds the GitHub Classroom workflow
(:mod:`graders.authoring.classroom`) and the Codespaces dev container
(:mod:`graders.authoring.devcontainer`), checked for leaks with the rest.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from graders.authoring.stubs import solution_lines
from graders.impl import KIT_ROOT

#: Top-level entries a release starts from. Its README is the student's
#: (:data:`STUDENT_README`); of the docs, the pages a student uses (the teacher's and the
#: kit developers' pages hold commands that need what the release leaves out).
INCLUDE = (
    "docs/course.md",
    "docs/self-study.md",
    "docs/students.md",
    "docs/how-it-works.md",
    "docs/environment.md",
    "docs/gpus.md",
    "docs/measured.md",  # the numbers the students' pages quote
    "docs/vi/course.md",
    "docs/vi/self-study.md",
    "docs/vi/students.md",
    "docs/vi/how-it-works.md",
    "docs/vi/gpus.md",
    "pyproject.toml",
    ".gitignore",
    "graders",
    "exercises",
    "fixtures",
    "scripts/setup.sh",
    "scripts/install_torch.py",
    "scripts/install_requirements.py",
    "scripts/image_python.sh",  # the Gradescope image's Python
    "conftest.py",
)
#: Teacher-only parts, left out even where they sit inside an included folder.
EXCLUDE = (
    "solutions",
    "hidden",
    "fixtures/mutants",
    "fixtures/submissions",
    "fixtures/probes",  # the kit's own world probes: one is a working ring shift
    "fixtures/new_chapter",  # the template chapter: its solution and hidden grader
    "tests",
    "bench",
    ".ci",
)
_JUNK = ("__pycache__", ".egg-info", ".pyc", ".hypothesis", ".pytest_cache", ".cache")


def included(relpath: str) -> bool:
    path = PurePosixPath(relpath)
    text = path.as_posix()
    if any(part.endswith(_JUNK) for part in path.parts):
        return False
    if any(text == e or text.startswith(e + "/") for e in EXCLUDE):
        return False
    return any(text == i or text.startswith(i + "/") for i in INCLUDE)


def kit_files(kit_root: Path = KIT_ROOT) -> list[str]:
    """The kit's files, relative: git's tracked and unignored files when it is a checkout."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=kit_root,
            capture_output=True,
            check=True,
        ).stdout
        files = [f for f in out.decode().split("\0") if f and (kit_root / f).is_file()]
        if files:
            return sorted(set(files))
    except (OSError, subprocess.CalledProcessError):
        pass
    return sorted(
        p.relative_to(kit_root).as_posix()
        for p in kit_root.rglob("*")
        if p.is_file() and not any(part.startswith(".") and part != ".gitignore" for part in p.parts)
    )


#: the release's README.md: set-up, the student's commands, in English and Vietnamese
STUDENT_README = "graders/authoring/README.student.md"


def build(out_dir: Path, kit_root: Path = KIT_ROOT, classroom: list[str] | None = None) -> list[str]:
    """Write the release into ``out_dir`` (which must not exist or be empty); returns its files.
    With ``classroom`` (chapters), it is a GitHub Classroom template: its workflow
    (:mod:`graders.authoring.classroom`) grades those chapters' parts, and its dev container
    (:mod:`graders.authoring.devcontainer`) sets a Codespace up."""
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} is not empty")
    files = [f for f in kit_files(kit_root) if included(f)]
    for rel in files:
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(kit_root / rel, target)
    shutil.copy2(kit_root / STUDENT_README, out_dir / "README.md")
    files.append("README.md")
    if classroom is not None:
        from graders.authoring import classroom as github_classroom
        from graders.authoring import devcontainer

        written = {
            github_classroom.WORKFLOW: github_classroom.workflow(classroom),
            devcontainer.PATH: devcontainer.text(),
        }
        for rel, text in written.items():
            (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (out_dir / rel).write_text(text, encoding="utf-8")
            files.append(rel)
    return sorted(set(files))


MIN_IDENTIFYING = 28


def identifying(line: str) -> bool:
    """A line specific enough to give an answer away.

    Short statements (``return schedule``, ``schedule.append(actions)``, ``if kind == "F":``)
    occur in answers and in public grader code alike and reveal nothing; a long one
    (``send_chunk, recv_chunk = (rank - step - 1) % world, ...``) is the answer itself.
    """
    return len(line) >= MIN_IDENTIFYING


def secret_lines(kit_root: Path = KIT_ROOT) -> set[str]:
    """Every identifying line of every reference solution's answer blocks, stripped."""
    secret = set()
    for path in sorted((kit_root / "solutions").rglob("*.py")):
        secret.update(line for line in solution_lines(path.read_text()) if identifying(line))
    return secret


@dataclass(frozen=True)
class Leak:
    file: str
    line_number: int
    line: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line_number}: {self.line}"


def find_leaks(release_dir: Path, kit_root: Path = KIT_ROOT) -> list[Leak]:
    secret = secret_lines(kit_root)
    leaks = []
    for path in sorted(Path(release_dir).rglob("*")):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip() in secret:
                leaks.append(Leak(path.relative_to(release_dir).as_posix(), number, line.strip()))
    return leaks


@dataclass
class Published:
    files: list[str]
    leaks: list[Leak]


def publish(out_dir: Path, kit_root: Path = KIT_ROOT, classroom: list[str] | None = None) -> Published:
    """Build the release beside ``out_dir`` (a temporary folder on the same drive), prove it
    gives no answer away, and only then move it into place: a refused release leaves nothing
    behind, and ``out_dir`` (absent or empty) is untouched. ``classroom``: see :func:`build`."""
    out_dir = Path(out_dir).absolute()
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise FileExistsError(f"{out_dir} is not empty")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-building-", dir=out_dir.parent))
    try:
        files = build(staging / "release", kit_root, classroom)
        leaks = find_leaks(staging / "release", kit_root)
        if not leaks:
            if out_dir.exists():
                out_dir.rmdir()  # empty: checked above
            (staging / "release").rename(out_dir)
        return Published(files, leaks)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
