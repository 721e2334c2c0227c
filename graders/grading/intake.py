"""Collect submissions and take from each only the chapter's module files.

Three layouts are recognised in ``SUBMISSIONS``:

* nbgrader's exchange layout: ``SUBMISSIONS/submitted/{student}/{assignment}/`` (or
  ``SUBMISSIONS`` being that ``submitted`` folder), with nbgrader's ``timestamp.txt``;
* a zip archive per student: ``SUBMISSIONS/{student}.zip``;
* a folder per student: ``SUBMISSIONS/{student}/``; a folder that is a git repository (GitHub
  Classroom's ``gh classroom clone student-repos``) is graded at a commit, from git's objects
  (:mod:`graders.grading.git_history`), never from its working tree.

Nobody is dropped silently: a folder that holds nbgrader's ``submitted/`` next to other student
folders or zips is refused with the list of what would be left out (grade them separately), and
whatever else looks like a submission but is not graded (a ``.tar.gz``, a student of
``submitted/`` without the assignment) is listed in :attr:`Collection.skipped`.

Inside a submission the module files are looked for in ``exercises/{chapter}/``, ``{chapter}/``
or the top level, whichever has any. Nothing else is taken: a ``conftest.py``, ``pytest.ini``,
``sitecustomize.py`` or ``.pth`` file, a symlink, an oversized file, or a zip entry that points
outside the archive is ignored and noted in the student's feedback (nbgrader's own files, its
``timestamp.txt`` and the released notebook and README, are expected and not noted). Zip
archives are read in memory, never extracted.

nbgrader's layout records when a student submitted (:mod:`graders.grading.timestamps`), and a
repository's graded commit has its committer date; elsewhere the files' modification times stand
in for it only when asked (``mtimes=True``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import stat
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

from graders import catalog
from graders.grading import git_history, timestamps
from graders.words.messages import say
from graders.words.text import said_by

MAX_FILE_BYTES = 512 * 1024
MAX_ZIP_BYTES = 64 * 1024 * 1024
#: Files that would change how Python or pytest starts if they were taken along.
DANGEROUS = re.compile(
    r"(^|/)(conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|sitecustomize\.py|"
    r"usercustomize\.py|[^/]*\.pth)$"
)
#: Files nbgrader puts in every submission of its layout: expected, so never noted.
NBGRADER_FILES = ("timestamp.txt", "*.ipynb", "README.md")
#: What an nbgrader course folder holds besides ``submitted/`` (``dtlab`` for dtlab's outputs).
NBGRADER_COURSE = frozenset({"source", "release", "autograded", "feedback", "exchange", "dtlab"})


@dataclass
class Staged:
    """What will be graded for one student: the module files, and what was left out and why."""

    student_id: str
    files: dict[str, bytes]  # "collectives.py" -> content
    notes: list[str] = field(default_factory=list)
    timestamp: str = ""  # ISO 8601 with its offset, when it was submitted ("" when unknown)
    source: str = ""
    commit: str = ""  # a repository's graded commit (its hash), "" for anything else
    commit_time: str = ""  # its committer date, ISO 8601 with its offset
    commit_late: bool = False  # the graded commit is after the due date

    @property
    def digest(self) -> str:
        """Identifies the graded content: a resubmission with other files is graded again."""
        h = hashlib.sha256()
        for name in sorted(self.files):
            h.update(name.encode() + b"\0" + hashlib.sha256(self.files[name]).digest())
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class Entry:
    """One file of a submission, before it is taken or refused."""

    path: str  # relative, POSIX
    size: int
    kind: str  # "file", "symlink", "other", "outside"
    read: object  # () -> bytes


@dataclass(frozen=True)
class Revisions:
    """Which commit of a repository is graded: the last at or before ``due``, or the head (no due
    date, or ``at_head``)."""

    due: datetime | None = None
    at_head: bool = False


@dataclass
class Collection:
    """The staged submissions, in student order, and what looked like one but is not graded."""

    staged: list[Staged]
    skipped: list[str] = field(default_factory=list)  # "bob.tar.gz: not a folder or a .zip"


def discover(
    root: Path,
    chapter: str,
    assignment: str | None = None,
    mtimes: bool = False,
    revisions: Revisions = Revisions(),
) -> Collection:
    """Every submission under ``root``, staged; raises :class:`ValueError` for a mixed layout (and
    when git, needed for a repository, is missing)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(say("intake:not a folder", root=root))
    submitted = root / "submitted" if (root / "submitted").is_dir() else None
    if submitted is None and root.name == "submitted":
        submitted = root
    if submitted is not None:
        _refuse_a_mixed_layout(root, submitted)
        collection = _nbgrader_layout(submitted, chapter, assignment or chapter)
    else:
        collection = _one_per_student(root, chapter, mtimes, revisions)
    ids = [s.student_id for s in collection.staged]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(say("intake:duplicates", ids=", ".join(duplicates)))
    collection.staged.sort(key=lambda s: s.student_id)
    return collection


def _refuse_a_mixed_layout(root: Path, submitted: Path) -> None:
    if submitted == root:
        return
    others = [
        entry.name + ("/" if entry.is_dir() else "")
        for entry in _children(root, with_files=True)
        if entry != submitted
        and entry.name not in NBGRADER_COURSE
        and (entry.is_dir() or entry.suffix == ".zip")
    ]
    if others:
        raise ValueError(say("intake:mixed layout", root=root, others=", ".join(others)))


def _nbgrader_layout(submitted: Path, chapter: str, assignment: str) -> Collection:
    modules = catalog.CHAPTERS[chapter].modules
    collection = Collection([])
    for student in _children(submitted):
        folder = student / assignment
        if not folder.is_dir():
            collection.skipped.append(
                say("intake:no assignment folder", student=student.name, assignment=assignment)
            )
            continue
        item = stage(folder_entries(folder), student.name, chapter, modules, str(folder), NBGRADER_FILES)
        item.timestamp = _nbgrader_timestamp(folder, item.notes)
        collection.staged.append(item)
    return collection


def _one_per_student(root: Path, chapter: str, mtimes: bool, revisions: Revisions) -> Collection:
    modules = catalog.CHAPTERS[chapter].modules
    collection = Collection([])
    for entry in _children(root, with_files=True):
        if entry.is_symlink():
            collection.skipped.append(say("intake:symbolic link", name=entry.name))
            continue
        if entry.is_dir() and git_history.is_repository(entry):
            collection.staged.append(_stage_repository(entry, chapter, modules, revisions))
            continue  # its time is the commit's, never the files'
        if entry.is_dir():
            item = stage(folder_entries(entry), entry.name, chapter, modules, str(entry))
            collection.staged.append(item)
        elif entry.suffix == ".zip" and entry.is_file():
            item = _stage_zip(entry, chapter, modules)
            collection.staged.append(item)
        else:
            collection.skipped.append(say("intake:not a submission", name=entry.name))
            continue
        if mtimes:
            item.timestamp = _modified(entry, item)
    return collection


def _stage_repository(repo: Path, chapter: str, modules: tuple[str, ...], revisions: Revisions) -> Staged:
    """The repository's graded commit, staged; its committer date is the submission time."""
    try:
        commit = git_history.graded_commit(repo, revisions.due, revisions.at_head)
        if commit is None:
            return Staged(student_id_of(repo.name), {}, [say("intake:no commit")])
        entries = [Entry(*found) for found in git_history.tree(repo, commit.hash)]
    except git_history.Unreadable as exc:
        return Staged(student_id_of(repo.name), {}, [say("intake:unreadable repository", error=str(exc))])
    item = stage(entries, repo.name, chapter, modules, f"{repo} @ {commit.hash}")
    item.timestamp = item.commit_time = commit.time
    item.commit, item.commit_late = commit.hash, commit.late
    return item


def _modified(entry: Path, item: Staged) -> str:
    """The latest modification time of the graded files (an archive's own time for a zip)."""
    if entry.is_file():
        return timestamps.from_epoch(entry.stat().st_mtime)
    times = [
        path.stat().st_mtime
        for path in entry.rglob("*.py")
        if path.name in item.files and path.is_file() and not path.is_symlink()
    ]
    return timestamps.from_epoch(max(times)) if times else ""


def _children(folder: Path, with_files: bool = False) -> list[Path]:
    return [
        entry
        for entry in sorted(folder.iterdir())
        if not entry.name.startswith((".", "_")) and (with_files or entry.is_dir())
    ]


def student_id_of(name: str) -> str:
    """A safe identifier (file names, CSV cells) from a folder or archive name."""
    cleaned = re.sub(r"[^A-Za-z0-9._@+-]", "_", name).strip("._") or "student"
    return cleaned[:100]


def folder_entries(folder: Path, max_entries: int = 2000) -> list[Entry]:
    entries = []
    for path in sorted(folder.rglob("*")):
        if len(entries) >= max_entries:
            break
        rel = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in PurePosixPath(rel).parts):
            continue
        if path.is_symlink():
            entries.append(Entry(rel, 0, "symlink", None))
        elif path.is_file():
            entries.append(Entry(rel, path.stat().st_size, "file", path.read_bytes))
        elif not path.is_dir():
            entries.append(Entry(rel, 0, "other", None))
    return entries


def _stage_zip(archive: Path, chapter: str, modules: tuple[str, ...]) -> Staged:
    student = student_id_of(archive.stem)
    if archive.stat().st_size > MAX_ZIP_BYTES:
        return Staged(
            student, {}, [say("intake:zip too large", archive=archive.name, mb=MAX_ZIP_BYTES >> 20)]
        )
    try:
        zf = zipfile.ZipFile(archive)
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        return Staged(student, {}, [say("intake:bad zip", archive=archive.name, error=exc)])
    entries = []
    for info in infos:
        if info.is_dir():
            continue
        name = info.filename.replace("\\", "/")
        parts = PurePosixPath(name).parts
        mode = info.external_attr >> 16
        if name.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", name):
            entries.append(Entry(name, info.file_size, "outside", None))
        elif stat.S_ISLNK(mode):
            entries.append(Entry(name, info.file_size, "symlink", None))
        elif any(p.startswith(".") or p == "__MACOSX" for p in parts):
            continue
        else:
            entries.append(Entry(name, info.file_size, "file", _zip_reader(zf, info)))
    staged = stage(entries, student, chapter, modules, str(archive))
    zf.close()
    return staged


def _zip_reader(zf: zipfile.ZipFile, info: zipfile.ZipInfo):
    def read() -> bytes:
        with zf.open(info) as fh:  # the declared size may lie: never read more than the limit
            data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise _TooLarge
        return data

    return read


class _TooLarge(Exception):
    pass


def stage(
    entries: list[Entry],
    student: str,
    chapter: str,
    modules: tuple[str, ...],
    source: str,
    expected: tuple[str, ...] = (),
) -> Staged:
    """Choose the chapter's module files among ``entries``; note everything refused.

    Top-level files matching a pattern of ``expected`` belong to the layout and are not noted.
    """
    wanted = {f"{m}.py" for m in modules}
    notes: list[str] = []
    for prefix in (f"exercises/{chapter}/", f"{chapter}/", ""):
        if any(e.path.startswith(prefix) and e.path[len(prefix) :] in wanted for e in entries):
            break
    else:
        prefix = ""
    files: dict[str, bytes] = {}
    ignored = 0
    for entry in entries:
        base = entry.path[len(prefix) :] if entry.path.startswith(prefix) else None
        if entry.kind == "outside":
            notes.append(say("intake:zip slip", path=entry.path))
        elif entry.kind == "symlink":
            notes.append(say("intake:ignored link", path=entry.path))
        elif DANGEROUS.search(entry.path):
            notes.append(say("intake:ignored other", path=entry.path))
        elif base in wanted and entry.kind == "file":
            if entry.size > MAX_FILE_BYTES:
                notes.append(say("intake:too large", path=entry.path, kb=MAX_FILE_BYTES // 1024))
                continue
            try:
                files[base] = entry.read()
            except _TooLarge:
                notes.append(say("intake:too large", path=entry.path, kb=MAX_FILE_BYTES // 1024))
            except Exception as exc:  # noqa: BLE001 - a broken or lying archive entry, whatever the error
                error = f"{type(exc).__name__}: {exc}"
                notes.append(say("intake:unreadable", path=entry.path, error=error))
        elif not ("/" not in entry.path and any(fnmatch.fnmatch(entry.path, p) for p in expected)):
            ignored += 1
    if ignored:
        notes.append(say("intake:others ignored", count=ignored, wanted=", ".join(sorted(wanted))))
    for name in sorted(wanted - set(files)):
        notes.append(say("intake:missing", name=name))
    return Staged(student_id_of(student), files, notes, source=source)


def _nbgrader_timestamp(folder: Path, notes: list[str]) -> str:
    """nbgrader's ``timestamp.txt`` as ISO 8601 with its offset; "" (and a note) when unusable."""
    path = folder / "timestamp.txt"
    if not path.is_file() or path.is_symlink():
        notes.append(say("intake:no timestamp"))
        return ""
    text = path.read_text(errors="replace").strip()[:64]
    try:
        return timestamps.nbgrader_time(text).isoformat()
    except ValueError as exc:
        notes.append(say("intake:bad timestamp", error=said_by(exc)))
        return ""
