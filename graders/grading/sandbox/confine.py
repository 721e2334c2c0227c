"""Confinement, applied by the forked supervisor and driver to themselves before any graded code runs.

The supervisor gets its own session, joins the cgroup and unshares the namespaces (or, without
them, becomes the subreaper of everything below it). The driver, pid 1 of the new PID namespace,
brings loopback up, enters a whitelisted root (the system, the Python installation, the kit's
``graders`` package read-only, and the work folder: ``solutions/``, the hidden graders, the other
submissions and the output folder do not exist in there), sets its rlimits, becomes an
unprivileged uid with ``no_new_privs`` and is not dumpable, so the graded code cannot read its
memory or file descriptors.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from graders.grading.sandbox.rlimits import Limits, apply_rlimits
from graders.grading.sandbox.syscalls import (
    MNT_DETACH,
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    NEW_NAMESPACES,
    PR_SET_DUMPABLE,
    PR_SET_NO_NEW_PRIVS,
    loopback_up,
    mount,
    pivot_root,
    umount,
    unshare,
)
from graders.proc import become_subreaper, die_with_parent, prctl

if TYPE_CHECKING:
    from graders.grading.sandbox.probe import Isolation


def confine_supervisor(isolation: Isolation, cgroup_procs: list[str]) -> None:
    """In the supervisor, before it forks the driver: own session, cgroup, new namespaces."""
    os.setsid()
    for path in cgroup_procs:
        with open(path, "w") as fh:
            fh.write(str(os.getpid()))
    if isolation.namespaces:
        unshare(NEW_NAMESPACES)
    else:
        become_subreaper()


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
    umount("/.old-root", MNT_DETACH)
    os.rmdir("/.old-root")
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
