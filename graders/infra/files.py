"""Files a batch writes for the teacher: whole or not at all, and readable by the teacher's group.

:func:`write_atomic` writes a temporary file in the same folder, flushes it and renames it over
the target, so a reader (or a batch killed halfway) sees the old file or the new one, never half.
Files are ``rw-r-----`` at least (the group can read them; others as the umask allows) and
folders ``rwxr-x---`` at least. When the batch runs as root (the full sandbox), both take the
group of the folder they are made in, as in a set-group-id folder: ``sudo dtlab grade --out
~/course/out`` gives files the teacher's group can read.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

FILE_MODE, DIR_MODE = 0o640, 0o750


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode(base: int, full: int) -> int:
    """``full`` as the umask allows, and never less than ``base`` (the owner's and group's bits)."""
    return (full & ~_umask()) | base


def _adopt_group(path: Path, fd: int | None = None) -> None:
    if os.geteuid() != 0:
        return
    gid = path.parent.stat().st_gid
    if fd is None:
        os.chown(path, -1, gid, follow_symlinks=False)
    else:
        os.fchown(fd, -1, gid)


def make_dirs(path: Path) -> Path:
    """``mkdir -p``: every folder made is readable and searchable by its group."""
    path = Path(path)
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        os.chmod(folder, _mode(DIR_MODE, 0o777))
        _adopt_group(folder)
    return path


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` so that readers see the old file or the new one."""
    path = Path(path)
    make_dirs(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, _mode(FILE_MODE, 0o666))
        _adopt_group(path, fd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
