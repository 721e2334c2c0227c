"""Confinement, applied by the forked supervisor and driver to themselves before any graded code runs.

The supervisor gets its own session, joins the cgroup (so the whole tree below it is in there
from its first process on) and unshares the namespaces (or, without them, becomes the subreaper
of everything below it). The driver, pid 1 of the new PID namespace, brings loopback up,
enters its file system view (:mod:`.root`: a whitelisted root, no program loader, one
size-limited work area), sets its rlimits, becomes an unprivileged uid with ``no_new_privs`` and
is not dumpable, so the graded code cannot read its memory or file descriptors.

Changing credentials clears the parent-death signal, so the driver sets it again once it is the
unprivileged uid, and then checks its lifeline (a pipe whose write end only the supervisor
holds): if the supervisor died in between, the driver ends at once. However the batch ends
(even ``kill -9``), the supervisor dies with the warm server, the driver with the supervisor,
and everything in the PID namespace with the driver.
"""

from __future__ import annotations

import os
import select
from typing import TYPE_CHECKING

from graders.grading.sandbox.rlimits import Limits, apply_rlimits
from graders.grading.sandbox.root import enter_whitelisted_root, mount_work_area_in_place
from graders.grading.sandbox.syscalls import (
    MS_PRIVATE,
    MS_REC,
    NEW_NAMESPACES,
    PR_SET_DUMPABLE,
    PR_SET_NO_NEW_PRIVS,
    loopback_up,
    mount,
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


def confine_driver(
    isolation: Isolation, limits: Limits, workdir: str, root_dir: str, uid: int | None, lifeline: int
) -> str | None:
    """In the driver (pid 1 of the new PID namespace): file system view, loopback, limits, identity.

    Returns the work area's path when the job has a size-limited one (the disk quota), else None.
    """
    die_with_parent()
    disk = None
    if isolation.namespaces:
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        loopback_up()
        if isolation.pivot_root:
            enter_whitelisted_root(root_dir, workdir, limits.disk_mb, uid)
        else:
            mount_work_area_in_place(root_dir, workdir, limits.disk_mb, uid)
        disk = workdir
    apply_rlimits(limits, as_root=uid is not None or os.geteuid() == 0)
    os.chdir(workdir)
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    die_with_parent()  # the credential change cleared it
    if _parent_gone(lifeline):
        os._exit(70)
    os.close(lifeline)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_DUMPABLE, 0)
    return disk


def _parent_gone(lifeline: int) -> bool:
    """The supervisor holds the only write end: the read end is readable (EOF) once it is gone."""
    readable, _, _ = select.select([lifeline], [], [], 0)
    return bool(readable)
