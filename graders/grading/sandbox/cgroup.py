"""One submission's cgroup (v2, or v1 ``memory`` + ``pids``), driven by the batch process.

A cgroup puts a memory and a process ceiling on the whole graded tree and kills it whole. The
cgroups are made below the batch's own (``dtlab-<batch pid>-<submission>``), wherever
:class:`Hierarchy` finds that: by default in ``/sys/fs/cgroup`` as ``/proc/self/cgroup`` names
it; a test passes a fake hierarchy built in a temporary folder.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from graders.grading.sandbox.rlimits import Limits


@dataclass(frozen=True)
class Hierarchy:
    """Where the cgroup file systems are mounted, and where to read which cgroup this process is in."""

    mount: Path = Path("/sys/fs/cgroup")
    self_cgroup: Path = Path("/proc/self/cgroup")
    proc: Path = Path("/proc")  # to tell whether a batch that made a cgroup is still alive

    def own(self, controller: str) -> str:
        """This process's cgroup path in the hierarchy of ``controller`` ("" for v2)."""
        for line in self.self_cgroup.read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controllers.split(",") == [controller] or (controller == "" and controllers == ""):
                return path
        raise FileNotFoundError(f"no cgroup for {controller!r}")

    def v1_base(self, controller: str) -> Path:
        return self.mount / controller / self.own(controller).lstrip("/")

    def v2_base(self) -> Path:
        root = self.mount
        if not (root / "cgroup.controllers").exists():
            root = root / "unified"  # the hybrid layout: v1 controllers, v2 mounted beside them
        return root / self.own("").lstrip("/")

    def bases(self) -> dict[str, Path]:
        """Where this process may make cgroups: ``unified`` (v2) and the v1 controllers it finds."""
        found = {}
        try:
            found["unified"] = self.v2_base()
        except (OSError, FileNotFoundError):
            pass
        for controller in ("memory", "pids"):
            try:
                found[controller] = self.v1_base(controller)
            except (OSError, FileNotFoundError):
                pass
        return found


SYSTEM = Hierarchy()


def _remove_dir(path: Path) -> None:
    """``rmdir`` of a cgroup: the kernel removes its interface files too, or refuses while it has members."""
    path.rmdir()


class Cgroup:
    """One submission's cgroup: a memory and a process ceiling, and a whole-tree kill."""

    def __init__(self, dirs: dict[str, Path], version: str) -> None:
        self.dirs = dirs  # controller -> folder ("unified" for v2)
        self.version = version

    @classmethod
    def create(cls, name: str, limits: Limits, version: str, hierarchy: Hierarchy = SYSTEM) -> Cgroup:
        dirs: dict[str, Path] = {}
        try:
            cls._make(dirs, name, limits, version, hierarchy)
        except BaseException:
            for path in dirs.values():  # a half-made cgroup is not left behind
                try:
                    _remove_dir(path)
                except OSError:
                    pass
            raise
        return cls(dirs, version)

    @staticmethod
    def _make(dirs: dict[str, Path], name: str, limits: Limits, version: str, hierarchy: Hierarchy) -> None:
        if version == "v2":
            path = hierarchy.v2_base() / name
            path.mkdir()
            dirs["unified"] = path
            (path / "memory.max").write_text(str(limits.memory_mb * 1024 * 1024))
            (path / "memory.swap.max").exists() and (path / "memory.swap.max").write_text("0")
            (path / "pids.max").write_text(str(limits.pids))
        else:
            for controller in ("memory", "pids"):
                path = hierarchy.v1_base(controller) / name
                path.mkdir()
                dirs[controller] = path
            (dirs["memory"] / "memory.limit_in_bytes").write_text(str(limits.memory_mb * 1024 * 1024))
            (dirs["pids"] / "pids.max").write_text(str(limits.pids))

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

    def remove(self, wait_s: float = 5.0) -> None:
        """Kill the members, then remove the folders. The kernel refuses while a member is still
        being torn down (a large process can take a second to give its memory back, after it
        left ``cgroup.procs``), so each folder is tried until ``wait_s`` has passed, not a fixed
        number of times: a normal finish leaves no empty cgroup behind."""
        self.kill(wait_s)
        end = time.monotonic() + wait_s
        for path in self.dirs.values():
            pause = 0.01
            while True:
                try:
                    _remove_dir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= end:
                        break  # left for the stale sweep (sandbox/stale.py) of the next run
                    time.sleep(pause)
                    pause = min(pause * 2, 0.2)


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


def cgroup_version(limits: Limits, hierarchy: Hierarchy = SYSTEM) -> tuple[str, str]:
    """The cgroup flavour that works here ("v2", "v1" or ""), and why each failed when neither
    does (``"v2: <error>; v1: <error>"``).

    Tried for real: a probe cgroup (``dtlab-<pid>-probe``) is made and removed.
    """
    name = f"dtlab-{os.getpid()}-probe"
    reasons = []
    for version in ("v2", "v1"):
        try:
            group = Cgroup.create(name, limits, version, hierarchy)
        except (OSError, FileNotFoundError, ValueError) as exc:
            reasons.append(f"{version}: {exc}")
            continue
        group.remove()
        return version, ""
    return "", "; ".join(reasons)
