"""Confinement of one submission's process tree while it is graded.

Layers, from the ones every machine has to the ones that need root (all Linux):

* **own process tree**: a new session; its supervisor is a child subreaper, so whatever the
  submission forks stays below it and is killed when grading ends (:mod:`.process_tree`);
* **rlimits** on every process: data segment (``RLIMIT_DATA``: a 50 GB allocation fails at
  once), CPU seconds, file size (a flood of output), open files, no core dumps, and the
  number of processes (``RLIMIT_NPROC``, which binds only when not root) (:mod:`.rlimits`);
* **cgroup** (v2, or v1 ``memory`` + ``pids``) when the cgroup tree is writable: a memory
  ceiling and a process ceiling for the whole tree, and killing it whole (:mod:`.cgroup`);
* **namespaces** (root): a PID namespace whose init is the grading driver (when it ends the
  kernel kills everything inside, and nothing inside can signal anything outside), a network
  namespace with only loopback up, and a mount namespace whose root is a whitelist: the
  system, the Python installation, the kit's ``graders`` package (read-only) and the work
  folder. ``solutions/``, the hidden graders, the other submissions and the output folder do
  not exist in there (:mod:`.confine`, :mod:`.root`, through :mod:`.syscalls`);
* **identity** (root): the tree runs as an unprivileged uid, one per concurrent job, with
  ``no_new_privs``; the driver is not dumpable, so the graded code cannot read its memory or
  file descriptors (:mod:`.confine`);
* **a file system of its own** (root): a whitelisted root without program loaders and one
  size-limited work area for everything the job writes (:mod:`.root`);
* **nothing left behind**: every process dies with the batch (parent-death signals, re-armed
  after the uid switch), and what a killed batch leaves is reaped before the next one starts
  (:mod:`.stale`).

:func:`detect` says which layers this machine allows (:mod:`.probe`, run as ``python -P -m
graders.grading.sandbox --probe`` in a fresh process); :class:`Cgroup` is driven by the batch
process; :func:`confine_supervisor` and :func:`confine_driver` run in the forked processes.
"""

from graders.grading.sandbox.cgroup import Cgroup
from graders.grading.sandbox.confine import confine_driver, confine_supervisor
from graders.grading.sandbox.probe import Isolation, UnsafeIsolation, detect, probe, require_safe
from graders.grading.sandbox.process_tree import kill_descendants
from graders.grading.sandbox.rlimits import Limits, apply_rlimits
from graders.grading.sandbox.stale import FOLDER_PREFIX, reap_stale

__all__ = [
    "FOLDER_PREFIX",
    "Cgroup",
    "Isolation",
    "Limits",
    "UnsafeIsolation",
    "apply_rlimits",
    "confine_driver",
    "confine_supervisor",
    "detect",
    "kill_descendants",
    "probe",
    "reap_stale",
    "require_safe",
]
