"""Collect submissions and take from each only the chapter's module files.

Three layouts are recognised in ``SUBMISSIONS``:

* nbgrader's exchange layout: ``SUBMISSIONS/submitted/{student}/{assignment}/`` (or
  ``SUBMISSIONS`` being that ``submitted`` folder), with nbgrader's ``timestamp.txt``;
* a zip archive per student: ``SUBMISSIONS/{student}.zip``;
* a folder per student: ``SUBMISSIONS/{student}/``.

Inside a submission the module files are looked for in ``exercises/{chapter}/``, ``{chapter}/``
or the top level, whichever has any. Nothing else is taken: a ``conftest.py``, ``pytest.ini``,
``sitecustomize.py`` or ``.pth`` file, a symlink, an oversized file, or a zip entry that points
outside the archive is ignored and noted in the student's feedback. Zip archives are read in
memory, never extracted.
"""

from __future__ import annotations

import hashlib
import re
import stat
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from graders import catalog

MAX_FILE_BYTES = 512 * 1024
MAX_ZIP_BYTES = 64 * 1024 * 1024
#: Files that would change how Python or pytest starts if they were taken along.
DANGEROUS = re.compile(
    r"(^|/)(conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|sitecustomize\.py|"
    r"usercustomize\.py|[^/]*\.pth)$"
)


@dataclass
class Staged:
    """What will be graded for one student: the module files, and what was left out and why."""

    student_id: str
    files: dict[str, bytes]  # "collectives.py" -> content
    notes: list[str] = field(default_factory=list)
    timestamp: str = ""  # ISO 8601, when it was submitted
    source: str = ""

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


def discover(root: Path, chapter: str, assignment: str | None = None) -> list[Staged]:
    """Every submission under ``root``, staged, in student order."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder of submissions")
    modules = catalog.CHAPTERS[chapter].modules
    submitted = root / "submitted" if (root / "submitted").is_dir() else None
    if submitted is None and root.name == "submitted":
        submitted = root
    staged: list[Staged] = []
    if submitted is not None:
        assignment = assignment or chapter
        for student in _children(submitted):
            folder = student / assignment
            if folder.is_dir():
                item = stage(folder_entries(folder), student.name, chapter, modules, str(folder))
                item.timestamp = _nbgrader_timestamp(folder) or item.timestamp
                staged.append(item)
    else:
        for entry in _children(root, with_files=True):
            if entry.is_dir() and not entry.is_symlink():
                staged.append(stage(folder_entries(entry), entry.name, chapter, modules, str(entry)))
            elif entry.suffix == ".zip" and entry.is_file():
                staged.append(_stage_zip(entry, chapter, modules))
    ids = [s.student_id for s in staged]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"several submissions for {', '.join(duplicates)} (a folder and a zip?)")
    return sorted(staged, key=lambda s: s.student_id)


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
        return Staged(student, {}, [f"{archive.name} is larger than {MAX_ZIP_BYTES >> 20} MB: not opened"])
    try:
        zf = zipfile.ZipFile(archive)
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        return Staged(student, {}, [f"{archive.name} is not a readable zip archive ({exc})"])
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
    staged.timestamp = staged.timestamp or _iso(archive.stat().st_mtime)
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


def stage(entries: list[Entry], student: str, chapter: str, modules: tuple[str, ...], source: str) -> Staged:
    """Choose the chapter's module files among ``entries``; note everything refused."""
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
            notes.append(f"ignored {entry.path!r}: a path outside the archive (zip slip)")
        elif entry.kind == "symlink":
            notes.append(f"ignored {entry.path}: a symbolic link")
        elif DANGEROUS.search(entry.path):
            notes.append(f"ignored {entry.path}: only the chapter's module files are graded")
        elif base in wanted and entry.kind == "file":
            if entry.size > MAX_FILE_BYTES:
                notes.append(f"ignored {entry.path}: larger than {MAX_FILE_BYTES // 1024} KB")
                continue
            try:
                files[base] = entry.read()
            except _TooLarge:
                notes.append(f"ignored {entry.path}: larger than {MAX_FILE_BYTES // 1024} KB")
            except Exception as exc:  # noqa: BLE001 - a broken or lying archive entry, whatever the error
                notes.append(f"ignored {entry.path}: unreadable ({type(exc).__name__}: {exc})")
        else:
            ignored += 1
    if ignored:
        notes.append(f"{ignored} other file(s) ignored: only {', '.join(sorted(wanted))} are graded")
    for name in sorted(wanted - set(files)):
        notes.append(f"{name} is missing from the submission")
    timestamp = ""
    if source and Path(source).is_dir():
        times = [(Path(source) / prefix / name).stat().st_mtime for name in files]
        timestamp = _iso(max(times)) if times else ""
    return Staged(student_id_of(student), files, notes, timestamp, source)


def _nbgrader_timestamp(folder: Path) -> str:
    path = folder / "timestamp.txt"
    if not path.is_file() or path.is_symlink():
        return ""
    text = path.read_text(errors="replace").strip()[:64]
    for fmt in ("%Y-%m-%d %H:%M:%S.%f %Z", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S %Z"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC).isoformat()
        except ValueError:
            continue
    return text


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")
