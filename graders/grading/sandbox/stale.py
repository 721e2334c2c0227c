"""What killed batches leave behind, found and removed before a new batch starts.

A batch names what it makes after its pid: cgroups ``dtlab-<pid>-<job>`` (below the batch's own
cgroup) and work folders ``dtlab-grade-<pid>-*`` (in the temporary folder). When that pid is no
longer running, whatever still carries its name is a leftover, even after ``kill -9``:

* every process still in one of its cgroups is killed, then the cgroup is removed;
* every process of the sandbox's uids (or, when not root, this user's) whose working folder is
  inside one of its work folders is killed: that finds leftovers on a machine without cgroups;
* the work folders are removed.

A pid that is running again (reused by another process) keeps its leftovers: nothing that may
belong to a live batch is touched.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path

from graders import config
from graders.grading.sandbox.cgroup import SYSTEM, Cgroup, Hierarchy
from graders.grading.sandbox.process_tree import PROC, process_dirs

PREFIX = "dtlab-"
FOLDER_PREFIX = "dtlab-grade-"
#: How many uids above DTLAB_SANDBOX_UID the jobs of one batch can use (one per concurrent job).
UID_RANGE = 1024


def _owner(name: str, prefix: str) -> str:
    return name[len(prefix) :].split("-", 1)[0]


def _gone(owner: str, proc: Path) -> bool:
    return owner.isdigit() and not (proc / owner).exists()


def stale_cgroups(hierarchy: Hierarchy = SYSTEM) -> list[Cgroup]:
    found = []
    for key, base in hierarchy.bases().items():
        for path in sorted(base.glob(PREFIX + "*")):
            if path.is_dir() and _gone(_owner(path.name, PREFIX), hierarchy.proc):
                found.append(Cgroup({key: path}, "v2" if key == "unified" else "v1"))
    return found


def stale_folders(tmp: Path | None = None, proc: Path = PROC) -> list[Path]:
    tmp = Path(tmp or tempfile.gettempdir())
    return [
        path
        for path in sorted(tmp.glob(FOLDER_PREFIX + "*-*"))
        if path.is_dir() and not path.is_symlink() and _gone(_owner(path.name, FOLDER_PREFIX), proc)
    ]


def processes_inside(folders: list[Path], proc: Path = PROC) -> list[int]:
    """Processes of the sandbox's uids (this user's, when not root) working inside ``folders``."""
    roots = [str(folder) + "/" for folder in folders]
    if not roots:
        return []
    if os.geteuid() == 0:
        first = config.sandbox_uid()
        uids = range(first, first + UID_RANGE)
    else:
        uids = range(os.getuid(), os.getuid() + 1)
    found = []
    for pid_dir in process_dirs(proc):
        try:
            if pid_dir.stat().st_uid not in uids:
                continue
            cwd = os.readlink(pid_dir / "cwd") + "/"
        except OSError:
            continue
        if any(cwd.startswith(root) for root in roots):
            found.append(int(pid_dir.name))
    return found


def reap_stale(hierarchy: Hierarchy = SYSTEM, tmp: Path | None = None, wait_s: float = 5.0) -> list[str]:
    """Kill and remove what dead batches left; returns what was removed (for a log line)."""
    removed = []
    for group in stale_cgroups(hierarchy):
        group.remove(wait_s)
        removed += [str(path) for path in group.dirs.values() if not path.exists()]
    folders = stale_folders(tmp, hierarchy.proc)
    for pid in processes_inside(folders, hierarchy.proc):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(str(folder))
    return removed
