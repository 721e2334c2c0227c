"""Confinement of one submission's process tree while it is graded.

Layers, from the ones every machine has to the ones that need root (all Linux):

* **own process tree**: a new session; its supervisor is a child subreaper, so whatever the
  submission forks stays below it and is killed when grading ends;
* **rlimits** on every process: data segment (``RLIMIT_DATA``: a 50 GB allocation fails at
  once), CPU seconds, file size (a flood of output), open files, no core dumps, and the
  number of processes (``RLIMIT_NPROC``, which binds only when not root);
* **cgroup** (v2, or v1 ``memory`` + ``pids``) when the cgroup tree is writable: a memory
  ceiling and a process ceiling for the whole tree, and killing it whole;
* **namespaces** (root): a PID namespace whose init is the grading driver (when it ends the
  kernel kills everything inside, and nothing inside can signal anything outside), a network
  namespace with only loopback up, and a mount namespace whose root is a whitelist: the
  system, the Python installation, the kit's ``graders`` package (read-only) and the work
  folder. ``solutions/``, the hidden graders, the other submissions and the output folder do
  not exist in there;
* **identity** (root): the tree runs as an unprivileged uid, one per concurrent job, with
  ``no_new_privs``; the driver is not dumpable, so the graded code cannot read its memory or
  file descriptors.

:func:`probe` says which layers this machine allows (run as ``python -m
graders.grading.sandbox --probe`` in a fresh process); :class:`Cgroup` is driven by the batch
process; :func:`confine_supervisor` and :func:`confine_driver` run in the forked processes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import platform
import resource
import signal
import socket
import struct
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graders import config

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine())
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


@dataclass(frozen=True)
class Limits:
    """What one submission may use. Memory and processes count the whole tree (cgroup)."""

    wall_s: float = 600.0
    memory_mb: int = 6144  # the whole tree (cgroup); without a cgroup, per process
    process_memory_mb: int = 3072  # RLIMIT_DATA of every process
    cpu_s: int = 1200  # RLIMIT_CPU of every process
    pids: int = 256  # cgroup pids.max; RLIMIT_NPROC when not root
    file_mb: int = 64  # RLIMIT_FSIZE: no single file (a log) grows beyond this
    open_files: int = 4096


@dataclass(frozen=True)
class Isolation:
    """Which layers this machine allows (see the module docstring)."""

    namespaces: bool = False
    pivot_root: bool = False
    cgroup: str = ""  # "v2", "v1" or "" (none)
    drop_uid: bool = False
    notes: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        layers = ["own process tree", "rlimits"]
        if self.cgroup:
            layers.append(f"cgroup {self.cgroup} (memory, pids)")
        if self.namespaces:
            layers.append("pid+net+mount namespaces" + (" (whitelisted root)" if self.pivot_root else ""))
        if self.drop_uid:
            layers.append("unprivileged uid per job")
        text = ", ".join(layers)
        return text + ("; " + "; ".join(self.notes) if self.notes else "")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Isolation:
        return cls(**{**data, "notes": tuple(data.get("notes", ()))})


# -- libc ---------------------------------------------------------------------------------------

_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    return _libc


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def prctl(option: int, value: int) -> None:
    _check(libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl({option})")


def unshare(flags: int) -> None:
    _check(libc().unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (source, target, fstype, data)]
    _check(libc().mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    if _SYS_PIVOT_ROOT is None:
        raise OSError(38, "pivot_root: unknown syscall number on this architecture")
    _check(libc().syscall(_SYS_PIVOT_ROOT, new_root.encode(), put_old.encode()), "pivot_root")


def die_with_parent() -> None:
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def loopback_up() -> None:
    """Bring ``lo`` up in a fresh network namespace (it starts down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", _ioctl(sock, SIOCGIFFLAGS, request))[1]
        _ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))


def _ioctl(sock: socket.socket, request: int, arg: bytes) -> bytes:
    import fcntl

    return fcntl.ioctl(sock.fileno(), request, arg + b"\0" * 8)[: len(arg)]


# -- rlimits -------------------------------------------------------------------------------------


def apply_rlimits(limits: Limits, as_root: bool) -> None:
    mib = 1024 * 1024
    wanted = {
        resource.RLIMIT_DATA: limits.process_memory_mb * mib,
        resource.RLIMIT_CPU: int(limits.cpu_s),
        resource.RLIMIT_FSIZE: limits.file_mb * mib,
        resource.RLIMIT_NOFILE: limits.open_files,
        resource.RLIMIT_CORE: 0,
    }
    if not as_root:
        # Counts every thread of this uid; a root-owned tree is bounded by the cgroup instead.
        wanted[resource.RLIMIT_NPROC] = _threads_of_this_user() + limits.pids
    for which, value in wanted.items():
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def _threads_of_this_user() -> int:
    """What RLIMIT_NPROC counts: the threads of every process of this uid."""
    uid = os.getuid()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[17])
            except (OSError, ValueError, IndexError):
                pass
    return count


# -- cgroups (driven by the batch process) -------------------------------------------------------


class Cgroup:
    """One submission's cgroup: a memory and a process ceiling, and a whole-tree kill."""

    def __init__(self, dirs: dict[str, Path], version: str) -> None:
        self.dirs = dirs  # controller -> folder ("unified" for v2)
        self.version = version

    @classmethod
    def create(cls, name: str, limits: Limits, version: str) -> Cgroup:
        dirs = {}
        if version == "v2":
            base = _v2_base()
            path = base / name
            path.mkdir()
            (path / "memory.max").write_text(str(limits.memory_mb * 1024 * 1024))
            (path / "memory.swap.max").exists() and (path / "memory.swap.max").write_text("0")
            (path / "pids.max").write_text(str(limits.pids))
            dirs["unified"] = path
        else:
            for controller in ("memory", "pids"):
                path = _v1_base(controller) / name
                path.mkdir()
                dirs[controller] = path
            (dirs["memory"] / "memory.limit_in_bytes").write_text(str(limits.memory_mb * 1024 * 1024))
            (dirs["pids"] / "pids.max").write_text(str(limits.pids))
        return cls(dirs, version)

    @property
    def procs_files(self) -> list[str]:
        return [str(path / "cgroup.procs") for path in self.dirs.values()]

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.dirs.values():
            try:
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return sorted(found)

    def kill(self, wait_s: float = 5.0) -> None:
        """SIGKILL everything in the cgroup, until it is empty."""
        kill_file = self.dirs.get("unified", Path("/nonexistent")) / "cgroup.kill"
        end = time.monotonic() + wait_s
        while time.monotonic() < end:
            pids = self.pids()
            if not pids:
                return
            if kill_file.exists():
                kill_file.write_text("1")
            else:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            time.sleep(0.02)

    def events(self) -> list[str]:
        """What the ceilings stopped: ``memory`` (an allocation was refused or OOM-killed), ``pids``."""
        hit = []
        if self.version == "v2":
            path = self.dirs["unified"]
            if _counter(path / "memory.events", "max") or _counter(path / "memory.events", "oom_kill"):
                hit.append("memory")
            if _counter(path / "pids.events", "max"):
                hit.append("pids")
        else:
            if _read_int(self.dirs["memory"] / "memory.failcnt"):
                hit.append("memory")
            if _counter(self.dirs["pids"] / "pids.events", "max"):
                hit.append("pids")
        return hit

    def remove(self) -> None:
        self.kill()
        for path in self.dirs.values():
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def _counter(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _read_int(path: Path) -> int:
    try:
        return int(path.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def _own_cgroup(controller: str) -> str:
    """This process's cgroup path in the hierarchy of ``controller`` ("" for v2)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers.split(",") == [controller] or (controller == "" and controllers == ""):
            return path
    raise FileNotFoundError(f"no cgroup for {controller!r}")


def _v1_base(controller: str) -> Path:
    return Path("/sys/fs/cgroup") / controller / _own_cgroup(controller).lstrip("/")


def _v2_base() -> Path:
    root = Path("/sys/fs/cgroup")
    if not (root / "cgroup.controllers").exists():
        root = root / "unified"
    return root / _own_cgroup("").lstrip("/")


def _cgroup_version(limits: Limits) -> tuple[str, str]:
    """The cgroup flavour that works here ("v2", "v1" or ""), and why not when neither does."""
    name = f"dtlab-probe-{os.getpid()}"
    reasons = []
    for version in ("v2", "v1"):
        try:
            group = Cgroup.create(name, limits, version)
        except (OSError, FileNotFoundError, ValueError) as exc:
            reasons.append(f"{version}: {exc}")
            continue
        group.remove()
        return version, ""
    return "", "no writable cgroup (" + "; ".join(reasons) + ")"


def remove_stale_cgroups(prefix: str = "dtlab-") -> None:
    """Remove the empty cgroups of batches that are gone (``dtlab-<batch pid>-<submission>``)."""
    bases = []
    try:
        bases.append(_v2_base())
    except (OSError, FileNotFoundError):
        pass
    for controller in ("memory", "pids"):
        try:
            bases.append(_v1_base(controller))
        except (OSError, FileNotFoundError):
            pass
    for base in bases:
        for path in base.glob(prefix + "*"):
            owner = path.name[len(prefix) :].split("-", 1)[0]
            if not owner.isdigit() or os.path.exists(f"/proc/{owner}"):
                continue  # a live batch's (or the probe's): not ours to touch
            try:
                if not (path / "cgroup.procs").read_text().strip():
                    path.rmdir()
            except OSError:
                pass


# -- probing ---------------------------------------------------------------------------------------


def probe() -> Isolation:
    """Which layers work here (call it in a fresh, single-threaded process)."""
    notes = []
    as_root = os.geteuid() == 0
    off = config.sandbox_mode() == "off"
    cgroup, why = ("", "cgroup disabled by DTLAB_SANDBOX=off") if off else _cgroup_version(Limits())
    if not cgroup:
        notes.append(why + ": memory and process ceilings are per process only")
    namespaces = pivot = drop_uid = False
    if as_root:
        namespaces, pivot, why = (
            (False, False, "namespaces disabled by DTLAB_SANDBOX=off") if off else _probe_namespaces()
        )
        if why:
            notes.append(why)
        drop_uid = pivot or _uid_can_run_python(config.sandbox_uid())
        if not drop_uid:
            uid = config.sandbox_uid()
            notes.append(f"uid {uid} cannot read the Python installation: graded code would run as root")
    else:
        notes.append(
            "not root: graded code runs as the grading user, with that user's view of files, "
            "processes and network (run the batch as root, e.g. in a container, for every layer)"
        )
    return Isolation(namespaces, pivot, cgroup, drop_uid, tuple(notes))


def _uid_can_run_python(uid: int) -> bool:
    """Whether ``uid`` can read everything the driver may still import (without a new root)."""
    paths = [path for path, _ in system_binds() if os.path.isdir(path)]  # listed while still root
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            ok = all(os.access(path, os.R_OK | os.X_OK) for path in paths)
            os._exit(0 if ok else 1)
        except BaseException:  # noqa: BLE001 - whatever happens, the child must not return
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _probe_namespaces() -> tuple[bool, bool, str]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        result = {"ns": False, "pivot": False, "why": ""}
        try:
            unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
            mount(None, "/", None, MS_REC | MS_PRIVATE)
            loopback_up()
            result["ns"] = True
            result["pivot"] = _SYS_PIVOT_ROOT is not None
        except OSError as exc:
            result["why"] = f"namespaces unavailable ({exc}): graded code shares the network and files"
        os.write(write, json.dumps(result).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    result = json.loads(data or b"{}")
    return result.get("ns", False), result.get("pivot", False), result.get("why", "")


_PROBED: Isolation | None = None


class UnsafeIsolation(RuntimeError):
    """Graded code would run as root: refused unless ``DTLAB_SANDBOX=unsafe``."""


def require_safe(isolation: Isolation) -> None:
    if os.geteuid() == 0 and not isolation.drop_uid and config.sandbox_mode() != "unsafe":
        raise UnsafeIsolation(
            "refusing to run graded code as root without an unprivileged uid to switch to "
            f"({isolation.describe()}); set DTLAB_SANDBOX=unsafe to do it anyway"
        )


def detect() -> Isolation:
    """:func:`probe`, run once per process in a fresh interpreter.

    ``DTLAB_SANDBOX=off`` turns the namespaces and the cgroup off (the uid switch stays: graded
    code never runs as root unless ``DTLAB_SANDBOX=unsafe``).
    """
    global _PROBED
    if _PROBED is None:
        if config.sandbox_mode() == "unsafe":
            _PROBED = Isolation(notes=("sandbox disabled by DTLAB_SANDBOX=unsafe",))
        else:
            import subprocess

            out = subprocess.run(
                [sys.executable, "-P", "-m", "graders.grading.sandbox", "--probe"],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            try:
                _PROBED = Isolation.from_dict(json.loads(out.stdout))
            except (ValueError, TypeError):
                _PROBED = Isolation(notes=(f"sandbox probe failed: {out.stderr.strip()[-300:]}",))
    return _PROBED


# -- in the forked supervisor and driver ---------------------------------------------------------


def confine_supervisor(isolation: Isolation, cgroup_procs: list[str]) -> None:
    """In the supervisor, before it forks the driver: own session, cgroup, new namespaces."""
    os.setsid()
    for path in cgroup_procs:
        with open(path, "w") as fh:
            fh.write(str(os.getpid()))
    if isolation.namespaces:
        unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
    else:
        prctl(PR_SET_CHILD_SUBREAPER, 1)


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


def confine_driver(
    isolation: Isolation, limits: Limits, workdir: str, root_dir: str, uid: int | None
) -> None:
    """In the driver (pid 1 of the new PID namespace): file system view, loopback, limits, identity."""
    die_with_parent()
    if isolation.namespaces:
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        loopback_up()
        if isolation.pivot_root:
            _enter_whitelisted_root(root_dir, workdir)
        else:
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    apply_rlimits(limits, as_root=uid is not None or os.geteuid() == 0)
    os.chdir(workdir)
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_DUMPABLE, 0)


def _enter_whitelisted_root(root_dir: str, workdir: str) -> None:
    mount("tmpfs", root_dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=755")

    def fresh_tmpfs(path: str) -> None:
        os.makedirs(root_dir + path, exist_ok=True)
        mount("tmpfs", root_dir + path, "tmpfs", MS_NOSUID | MS_NODEV, "size=256m,mode=1777")

    fresh_tmpfs("/tmp")  # before the work folder, which usually lives below /tmp
    for path, writable in [*system_binds(), ("/dev", True), (workdir, True)]:
        target = root_dir + path
        os.makedirs(target, exist_ok=True)
        mount(path, target, None, MS_BIND | MS_REC)
        if not writable:
            mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)
    fresh_tmpfs("/dev/shm")  # not the machine's: no channel between submissions
    os.makedirs(root_dir + "/proc", exist_ok=True)
    old = root_dir + "/.old-root"
    os.makedirs(old, exist_ok=True)
    pivot_root(root_dir, old)
    os.chdir("/")
    _check(libc().umount2(b"/.old-root", MNT_DETACH), "umount old root")
    os.rmdir("/.old-root")
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def kill_descendants(root_pid: int, wait_s: float = 3.0) -> None:
    """SIGKILL every process below ``root_pid`` (by walking /proc), until there is none."""
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        children = _descendants(root_pid)
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap_all()
        time.sleep(0.01)


def _descendants(root_pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            parents[int(entry)] = int(fields[1])
    found, frontier = set(), [root_pid]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    return sorted(found)


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


if __name__ == "__main__":
    if sys.argv[1:] == ["--probe"]:
        print(json.dumps(probe().to_dict()))
