"""The file system a graded tree sees (root, in its own mount namespace).

* **a whitelisted root**: a small tmpfs holding read-only, ``nosuid``/``nodev`` binds of the
  system (``/usr``, ``/etc``, ...), the Python installation and the kit's ``graders`` package,
  and ``/dev``. ``solutions/``, the hidden graders, the other submissions and the output folder
  do not exist in there.
* **no program loader**, deliberately: the dynamic loaders (``ld-linux*.so*``, ``ld-musl*``,
  and whatever the Python executable names as its interpreter) are covered by an empty,
  unreadable file, and ``/lib64`` is not recreated, so graded code cannot start a dynamically
  linked program (a shell, another Python, a compiler), neither by its path nor by running the
  loader itself. Graded code computes in the processes the kit forks for it, which have their
  loader mapped already. The system's statically linked tools (``ldconfig``) can still start,
  read-only and unprivileged.
* **one size-limited work area**: a tmpfs of ``--disk-mb`` (``nosuid,nodev,noexec``) holding
  the job's work folder (a copy of what the batch staged), ``/tmp`` and ``/dev/shm``: the job
  can write nowhere else, nothing it writes can be executed or carry a set-user-id bit, and
  when it is full writes fail with ``ENOSPC`` (the driver reports "disk quota exceeded").
  The kit's report goes to a small tmpfs of its own inside it, so a full work area cannot
  stop the driver from reporting.
"""

from __future__ import annotations

import glob
import os
import shutil
import struct
import sys

from graders.grading.sandbox.syscalls import (
    MNT_DETACH,
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    mount,
    pivot_root,
    umount,
)

_WRITABLE = MS_NOSUID | MS_NODEV | MS_NOEXEC
REPORT_MB = 32
#: Where dynamic loaders live: covered in the graded tree (see the module docstring).
LOADER_GLOBS = (
    "/lib*/ld-*.so*",
    "/usr/lib*/ld-*.so*",
    "/lib/*/ld-*.so*",
    "/usr/lib/*/ld-*.so*",
    "/lib/ld-musl*",
)


def system_binds() -> list[tuple[str, bool]]:
    """``(path, writable)`` the graded tree needs to see: the system and the Python installation."""
    import graders

    paths = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys"]
    paths += [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    paths += [p for p in sys.path if p and os.path.isdir(p) and "site-packages" in p]
    paths += list(graders.__path__)
    unique = []
    for path in paths:
        path = os.path.realpath(path)
        if os.path.exists(path) and not any(path == u or path.startswith(u + "/") for u in unique):
            unique = [u for u in unique if not u.startswith(path + "/")] + [path]
    return [(p, False) for p in sorted(unique)]


def program_loader(executable: str | None = None) -> str | None:
    """The ELF interpreter (``PT_INTERP``) of ``executable`` (this Python): the dynamic loader."""
    path = os.path.realpath(executable or sys.executable)
    try:
        with open(path, "rb") as fh:
            header = fh.read(64)
            if header[:4] != b"\x7fELF" or header[4] != 2:  # 64-bit ELF only
                return None
            order = "<" if header[5] == 1 else ">"
            (phoff,) = struct.unpack_from(order + "Q", header, 0x20)
            phentsize, phnum = struct.unpack_from(order + "HH", header, 0x36)
            for index in range(phnum):
                fh.seek(phoff + index * phentsize)
                kind, _, offset, _, _, size = struct.unpack(order + "IIQQQQ", fh.read(40))
                if kind == 3:  # PT_INTERP
                    fh.seek(offset)
                    return fh.read(size).rstrip(b"\0").decode()
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None


def program_loaders() -> list[str]:
    """Every dynamic loader of this system, by its real path (and the interpreter Python names)."""
    found = {os.path.realpath(path) for pattern in LOADER_GLOBS for path in glob.glob(pattern)}
    interpreter = program_loader()
    if interpreter:
        found |= {interpreter, os.path.realpath(interpreter)}
    return sorted(path for path in found if os.path.isfile(path))


def enter_whitelisted_root(root_dir: str, workdir: str, disk_mb: int, uid: int | None) -> None:
    """Build the root in ``root_dir`` (an empty folder), with the work area, and pivot into it."""
    mount("tmpfs", root_dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=755")
    disk = root_dir + "/.disk"
    _mount_work_area(disk, workdir, disk_mb, uid)
    _bind(disk + "/tmp", root_dir + "/tmp")  # before the work folder, which usually lives below /tmp
    for path, _ in system_binds():
        _bind(path, root_dir + path, read_only=True)
    _bind("/dev", root_dir + "/dev", recursive=True)
    _bind(disk + "/shm", root_dir + "/dev/shm")  # not the machine's: no channel between submissions
    _bind(disk + "/work", root_dir + workdir)
    _mount_report_area(root_dir + workdir + "/report", uid)
    loaders = program_loaders()
    os.makedirs(root_dir + "/proc", exist_ok=True)
    old = root_dir + "/.old-root"
    os.makedirs(old, exist_ok=True)
    pivot_root(root_dir, old)
    os.chdir("/")
    umount("/.old-root", MNT_DETACH)
    os.rmdir("/.old-root")
    umount("/.disk", MNT_DETACH)  # reachable only through the binds above now
    os.rmdir("/.disk")
    _hide([path for path in loaders if os.path.exists(path)])
    _mount_proc()


def mount_work_area_in_place(root_dir: str, workdir: str, disk_mb: int, uid: int | None) -> None:
    """Without pivot_root: the work area over the work folder itself (``/tmp`` stays the machine's)."""
    _mount_work_area(root_dir, workdir, disk_mb, uid)
    _bind(root_dir + "/work", workdir)
    umount(root_dir, MNT_DETACH)
    _mount_report_area(workdir + "/report", uid)
    _mount_proc()


def _mount_proc() -> None:
    """The PID namespace's own ``/proc``, with the command line of its first process (the grading
    driver, whose arguments name the kit's folder) read as empty."""
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("/dev/null", "/proc/1/cmdline", None, MS_BIND)


def _mount_work_area(disk: str, workdir: str, disk_mb: int, uid: int | None) -> None:
    os.makedirs(disk, exist_ok=True)
    mount("tmpfs", disk, "tmpfs", _WRITABLE, f"size={disk_mb}m,mode=755")
    shutil.copytree(workdir, disk + "/work", symlinks=True, ignore=shutil.ignore_patterns("driver.log"))
    if uid is not None:
        for folder, dirs, files in os.walk(disk + "/work"):
            for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                os.lchown(name, uid, uid)
    for name in ("tmp", "shm"):
        os.mkdir(f"{disk}/{name}")
        os.chmod(f"{disk}/{name}", 0o1777)


def _mount_report_area(path: str, uid: int | None) -> None:
    os.makedirs(path, exist_ok=True)
    owner = f",uid={uid},gid={uid}" if uid is not None else ""
    mount("tmpfs", path, "tmpfs", _WRITABLE, f"size={REPORT_MB}m,mode=700{owner}")


def _bind(source: str, target: str, *, read_only: bool = False, recursive: bool = False) -> None:
    os.makedirs(target, exist_ok=True)
    mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
    if read_only:
        mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _hide(paths: list[str]) -> None:
    """Mount an empty file with no permissions over each of ``paths`` (in the new root)."""
    if not paths:
        return
    empty = "/.empty"
    with open(empty, "w"):
        pass
    os.chmod(empty, 0)
    for path in paths:
        mount(empty, path, None, MS_BIND)
        mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
