"""A warm grading interpreter: import torch, pytest, hypothesis and the graders once per batch.

Starting a grading driver costs about 3 s of torch import plus 3-4 s of pytest compiling the
plugins it rewrites; its world's fork server imports torch again. The warm server (``python -P
-m graders.grading.warm FD``) pays that once and then, for every submission, forks:

* a **supervisor**, which joins the submission's cgroup, enters new namespaces and forks
* the **driver**, which confines itself (:func:`graders.grading.sandbox.confine_driver`) and runs
  pytest in-process; its world's fork server is forked from it too (no new interpreter).

The warm server never runs graded code and never runs pytest, so every fork starts from the same
clean, trusted state: isolation is that of a fresh interpreter, the start is ~100x cheaper.

Protocol on the control socket (batch process <-> warm server, both trusted): pickled dicts with
``SCM_RIGHTS`` file descriptors (:func:`graders.proc.send_msg`). A request carries the
write end of a pipe on which the driver writes its report and the supervisor the exit status.
"""

from __future__ import annotations

import json
import os
import pkgutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from graders.proc import (
    await_ready,
    close_fds_except,
    die_with_parent,
    recv_msg,
    redirect_stdio,
    send_msg,
    serve_requests,
    stop_server,
)

#: the kit's wings a grading driver and its workers use: the pytest face and everything below it
DRIVER_WINGS = frozenset(
    {"plugin", "misconceptions", "chapters", "world", "comm", "training", "catalog", "words", "judge"}
    | {"impl", "config", "errors", "gradebook", "proc"}
)


def preload() -> None:
    """Import everything a grading driver and its workers use (never graded code)."""
    import hypothesis  # noqa: F401
    import hypothesis.extra.pytestplugin  # noqa: F401
    import numpy  # noqa: F401
    import pytest  # noqa: F401
    import torch
    import torch.distributed  # noqa: F401

    torch.set_num_threads(1)
    import graders

    for module in pkgutil.walk_packages(graders.__path__, "graders."):
        if module.name.split(".")[1] not in DRIVER_WINGS:
            continue
        try:
            __import__(module.name)
        except ImportError:
            pass
    import graders.grading.driver  # noqa: F401
    import graders.grading.sandbox  # noqa: F401
    import graders.world.preload

    graders.world.preload.preload()
    try:  # hypothesis scans the loaded modules for constants once per new module: do it here
        from hypothesis.internal.conjecture.providers import _get_local_constants

        _get_local_constants()
    except ImportError:  # pragma: no cover - another hypothesis version
        pass
    import gc

    gc.collect()
    gc.freeze()  # what every fork shares is never scanned (nor copied) by their collections


def serve(ctrl_fd: int, parent: int) -> None:
    """Serve the batch process ``parent``; if it died before the parent-death signal was set, end."""

    def preload_for_a_live_parent() -> None:
        if os.getppid() != parent:
            os._exit(0)
        preload()

    serve_requests(ctrl_fd, preload_for_a_live_parent, _fork_supervisor)


def _fork_supervisor(ctrl: socket.socket, request: dict, fds: list[int]) -> None:
    server = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            ctrl.close()
            _supervise(request, fds[0], server)
        finally:
            os._exit(70)
    for fd in fds:
        os.close(fd)
    send_msg(ctrl, {"pid": pid})


def _supervise(request: dict, out_fd: int, server: int) -> None:
    """The supervisor: cgroup and namespaces, then fork the driver and report how it ended."""
    from graders.grading import sandbox

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    die_with_parent()
    if os.getppid() != server:  # the warm server died before the parent-death signal was set
        os._exit(0)
    isolation = sandbox.Isolation.from_dict(request["isolation"])
    started = time.monotonic()
    try:
        sandbox.confine_supervisor(isolation, request["cgroup_procs"])
    except OSError as exc:
        _write(out_fd, {"status": {"setup_error": f"sandbox: {exc}"}})
        os._exit(0)
    lifeline, lifeline_end = os.pipe()  # the supervisor keeps lifeline_end open while it lives
    driver = os.fork()
    if driver == 0:
        os.close(lifeline_end)
        _drive(request, out_fd, isolation, lifeline)  # never returns
    os.close(lifeline)
    terminated = []

    def on_term(signum, frame):
        terminated.append(signum)
        _kill_tree(driver, isolation)

    signal.signal(signal.SIGTERM, on_term)
    while True:
        try:
            _, status, usage = os.wait4(driver, 0)
            break
        except ChildProcessError:
            status, usage = 0, None
            break
        except InterruptedError:
            continue
    _kill_tree(driver, isolation)
    code = os.waitstatus_to_exitcode(status)
    _write(
        out_fd,
        {
            "status": {
                "exit": code,
                "signal": signal.Signals(-code).name if code < 0 and -code in signal.valid_signals() else "",
                "terminated": bool(terminated),
                "seconds": time.monotonic() - started,
                "max_rss_mb": (usage.ru_maxrss / 1024) if usage else 0.0,
            }
        },
    )
    os._exit(0)


def _kill_tree(driver: int, isolation) -> None:
    from graders.grading import sandbox

    try:
        os.kill(driver, signal.SIGKILL)  # in a PID namespace its death takes every process with it
    except ProcessLookupError:
        pass
    if not isolation.namespaces:
        sandbox.kill_descendants(os.getpid())


def _drive(request: dict, out_fd: int, isolation, lifeline: int) -> None:
    """The driver: confine, then run pytest in this (already warm) interpreter."""
    code = 70
    try:
        from graders.grading import driver, sandbox

        driver.shield()  # before anything: graded code must never be able to stop the driver
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        limits = sandbox.Limits(**request["limits"])
        log_fd = os.open(os.path.join(request["workdir"], "driver.log"), os.O_WRONLY | os.O_CREAT, 0o644)
        uid = request.get("uid")
        if uid is not None:
            os.fchown(log_fd, uid, uid)
        disk = sandbox.confine_driver(
            isolation, limits, request["workdir"], request["root_dir"], uid, lifeline
        )
        redirect_stdio(log_fd)
        close_fds_except(out_fd)
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None  # the server's cached choice; worlds go to this job's TMPDIR
        code = driver.run(request["argv"], out_fd, request["scratch"], disk)
    except BaseException as exc:  # noqa: BLE001 - report anything, never return into the server
        try:
            _write(out_fd, {"driver_error": f"{type(exc).__name__}: {exc}"})
        except OSError:
            pass
    finally:
        os._exit(code)


def _write(fd: int, message: dict) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        written = os.write(fd, data)
        data = data[written:]


# -- the batch process's side -----------------------------------------------------------------


class WarmServer:
    """Handle on one warm server; thread-safe (one request at a time over the control socket)."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.lock = threading.Lock()

    def start(self, timeout: float = 180.0) -> None:
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "graders.grading.warm", str(theirs.fileno()), str(os.getpid())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.cwd, "warm.log"), "wb"),  # noqa: SIM115
            env=env,
            cwd=self.cwd,
        )
        theirs.close()
        self.sock = ours
        log = os.path.join(self.cwd, "warm.log")
        await_ready(self.sock, timeout, log, "the warm grading server did not start")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def launch(self, request: dict, out_fd: int) -> int:
        """Fork a supervised driver for ``request``; returns the supervisor's pid."""
        with self.lock:
            if not self.alive():
                self.start()
            self.sock.settimeout(60)
            try:
                send_msg(self.sock, request, [out_fd])
                reply, _ = recv_msg(self.sock)
            finally:
                self.sock.settimeout(None)
        return reply["pid"]

    def close(self) -> None:
        if self.proc is None:
            return
        stop_server(self.proc, self.sock)
        self.proc = None


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    serve(int(sys.argv[1]), int(sys.argv[2]))
