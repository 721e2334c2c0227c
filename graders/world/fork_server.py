"""A fork server for worker ranks: import torch once, then fork worlds in milliseconds.

Importing torch costs about 3 s of CPU on the course machines, so starting four fresh
interpreters per world would make every world restart (after a hang or a crash) cost ten
seconds or more. The fork server is started once per driver; it imports torch and the worker code,
never initialises a process group and never runs student code, and forks ranks on request.
Each forked rank gets a private socket whose other end the fork server hands to the driver
(SCM_RIGHTS), and joins a process group of its world so the driver can kill the world at once.

Protocol on the control socket (driver ↔ fork server, both trusted): pickled dicts, framed by
:mod:`graders.proc`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection

from graders.errors import WorldStartError
from graders.proc import (
    await_ready,
    become_subreaper,
    close_fds_except,
    die_with_parent,
    exit_statuses,
    reap_children,
    recv_msg,
    redirect_output,
    redirect_stdio,
    send_msg,
    serve_requests,
    stop_server,
)

#: Fork the server from the current process instead of starting a new interpreter. Batch grading
#: sets it in a driver that was itself forked from a warm interpreter which already imported torch
#: (:mod:`graders.grading.warm`), which saves the ~3 s import per submission.
FORK_IN_PROCESS = False


def _spawn_world(ctrl: socket.socket, request: dict) -> None:
    pgid = 0
    for rank in request.get("ranks") or range(request["size"]):
        parent_end, child_end = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the rank
            try:
                ctrl.close()
                parent_end.close()
                os.setpgid(0, pgid)
                _become_rank(rank, child_end.detach(), request)
            finally:
                os._exit(70)
        if pgid == 0:
            pgid = pid
        try:
            os.setpgid(pid, pgid)
        except OSError:
            pass  # the child already did it, or already exited
        child_end.close()
        send_msg(ctrl, {"rank": rank, "pid": pid, "pgid": pgid}, [parent_end.fileno()])
        parent_end.close()


def _become_rank(rank: int, conn_fd: int, request: dict) -> None:
    from graders.world.worker import Worker, WorkerArgs

    _default_signals()
    log_fd = os.open(
        os.path.join(request["dir"], f"log-{rank}"),
        os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND,
        0o644,
    )
    redirect_output(log_fd)
    os.chdir(request["dir"])
    die_with_parent()
    args = WorkerArgs(
        rank,
        request["size"],
        request["store_port"],
        conn_fd,
        request["dir"],
        request["pg_timeout"],
        request["placement"],
        request.get("store_host", "127.0.0.1"),
        request.get("store_prefix", ""),
    )
    Worker(args).serve()
    os._exit(0)


def _launch(ctrl: socket.socket, request: dict) -> None:
    """Fork the agent of a launched world (:func:`graders.world.launched.ranks.serve_launch`), the
    leader of a new process group its ranks join."""
    pid = os.fork()
    if pid == 0:  # the agent
        try:
            ctrl.close()
            os.setpgid(0, 0)
            _default_signals()
            log_fd = os.open(os.path.join(request["dir"], "agent.log"), os.O_WRONLY | os.O_CREAT, 0o644)
            redirect_output(log_fd)
            os.chdir(request["dir"])
            die_with_parent()
            from graders.world.launched.ranks import serve_launch

            serve_launch(request)
        finally:
            os._exit(70)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the agent already did it, or already exited
    send_msg(ctrl, {"pid": pid, "pgid": pid})


#: signals that would end the fork server: graded code cannot send them (``comm.doors``), and the
#: server ignores them besides; its ranks take the defaults back (``_become_rank``)
_ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def _default_signals() -> None:
    """In a forked rank or agent: the signal dispositions the fork server changed, back to
    Python's defaults (an ignored signal would stay ignored across ``exec`` too)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for signum in _ENDING_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def serve(ctrl_fd: int) -> None:
    from graders.world.preload import preload

    for signum in _ENDING_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    become_subreaper()  # whatever the ranks' children leave orphaned is reaped here
    serve_requests(ctrl_fd, preload, _handle)


def _handle(ctrl: socket.socket, request: dict, fds: list[int]) -> None:
    op = request["op"]
    if op == "spawn":
        _spawn_world(ctrl, request)
    elif op == "launch":
        _launch(ctrl, request)
    elif op == "status":
        end = time.monotonic() + request.get("wait", 0)
        pids = request["pids"]
        while time.monotonic() < end and not all(p in exit_statuses for p in pids):
            reap_children(exit_statuses)
            time.sleep(0.02)
        reap_children(exit_statuses)
        send_msg(ctrl, {p: exit_statuses.get(p) for p in pids})


def _serve_forked(ctrl_fd: int, base_dir: str, environ: dict | None = None) -> None:
    """The forked fork server: drop the driver's files and signal handlers, then serve."""
    log_fd = os.open(os.path.join(base_dir, "fork-server.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    redirect_stdio(log_fd)
    close_fds_except(ctrl_fd)
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__  # not a capture (pytest's) on a closed fd
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_DFL)
    os.environ.update(GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    for name, value in (environ or {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    os.chdir(base_dir)
    sys.dont_write_bytecode = True
    serve(ctrl_fd)


class _ForkedServer:
    """What :class:`ForkServer` needs of a ``Popen`` for a fork server forked from this process."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -1
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired("fork server", timeout)
            time.sleep(0.01)
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# -- the driver's side ------------------------------------------------------------------------

KIT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class ForkServer:
    """Driver-side handle on the fork server (:mod:`graders.world.fork_server`)."""

    def __init__(
        self, base_dir: str, environ: dict[str, str | None] | None = None, *, in_process=None
    ) -> None:
        """``environ``: variables the fork server (and every rank) gets beyond the kit's own,
        which it may override or remove (None): a rank host on a cluster names its network
        interface so. ``in_process``: fork it from this process, which has imported torch
        (as :data:`FORK_IN_PROCESS` does for every fork server of a process); None: as
        :data:`FORK_IN_PROCESS` says."""
        self.base_dir = base_dir
        self.environ = environ or {}
        self.in_process = in_process
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.ready = False
        self._launcher: ForkServer | None = None

    def start(self) -> None:
        if self.proc is not None:
            return
        in_process = self.in_process
        if in_process is None:
            in_process = FORK_IN_PROCESS
        ours, theirs = socket.socketpair()
        if in_process:
            import gc

            gc.collect()  # no garbage for the server to finalise: a dead socket's close could hit its fds
            pid = os.fork()
            if pid == 0:  # the fork server
                try:
                    ours.close()
                    _serve_forked(theirs.fileno(), self.base_dir, self.environ)
                finally:
                    os._exit(0)
            theirs.close()
            self.proc, self.sock = _ForkedServer(pid), ours
            return
        env = dict(os.environ)
        env.update(
            GLOO_SOCKET_IFNAME="lo",
            OMP_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            PYTHONPATH=os.pathsep.join(filter(None, [KIT_ROOT, env.get("PYTHONPATH", "")])),
            PYTHONUNBUFFERED="1",
        )
        env.update(self.environ)
        env = {name: value for name, value in env.items() if value is not None}
        log = open(os.path.join(self.base_dir, "fork-server.log"), "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graders.world.fork_server", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=self.base_dir,
        )
        log.close()
        theirs.close()
        self.sock = ours

    def wait_ready(self, timeout: float = 120.0) -> None:
        if self.ready:
            return
        self.start()
        log = os.path.join(self.base_dir, "fork-server.log")
        await_ready(self.sock, timeout, log, "the worker fork server failed to start", WorldStartError)
        self.ready = True

    def spawn(
        self,
        size: int,
        world_dir: str,
        store_port: int,
        pg_timeout: float,
        placement,
        *,
        ranks: list[int] | None = None,
        store_host: str = "127.0.0.1",
        store_prefix: str = "",
    ):
        """Fork a world on ``placement`` (:class:`graders.world.backend.Placement`); returns
        ``[(pid, pgid, Connection)]`` in rank order. ``ranks``: only these ranks of the world
        (a rank host of a torchrun-launched world forks its own), joining the store at
        ``store_host:store_port`` under ``store_prefix``."""
        self.wait_ready()
        send_msg(
            self.sock,
            {
                "op": "spawn",
                "size": size,
                "dir": world_dir,
                "store_port": store_port,
                "pg_timeout": pg_timeout,
                "placement": placement,
                "ranks": ranks,
                "store_host": store_host,
                "store_prefix": store_prefix,
            },
        )
        forked = []
        for _ in ranks or range(size):
            info, fds = recv_msg(self.sock)
            forked.append((info["pid"], info["pgid"], Connection(fds[0])))
        return forked

    def launcher(self) -> ForkServer:
        """The fork server that forks a launched world's agent (torch's elastic agent): this one
        when it is a new interpreter, else a new-interpreter server beside it, started on first
        use. An agent forked from a server forked in a process that ran pytest died of SIGBUS when
        one of its ranks exited first (``ch1/_cheat_exit_rank1_others_asleep``), and its exit
        codes with it: a launched world keeps to the fresh interpreter it was proven in."""
        self.start()
        if isinstance(self.proc, subprocess.Popen):
            return self
        if self._launcher is None:
            self._launcher = ForkServer(self.base_dir, self.environ, in_process=False)
        return self._launcher

    def launch(self, size: int, world_dir: str, message: dict, *, gpus: bool = False) -> tuple[int, int]:
        """Fork the agent of a launched world of ``size`` ranks running ``message``'s task, the
        machine's GPUs visible to its ranks if ``gpus``; returns ``(pid, pgid)`` of the agent."""
        self.wait_ready()
        request = {"op": "launch", "size": size, "dir": world_dir, "message": message, "gpus": gpus}
        send_msg(self.sock, request)
        info, _ = recv_msg(self.sock)
        return info["pid"], info["pgid"]

    def exit_statuses(self, pids: list[int], wait_s: float) -> dict[int, int | None]:
        send_msg(self.sock, {"op": "status", "pids": pids, "wait": wait_s})
        statuses, _ = recv_msg(self.sock)
        return statuses

    def close(self) -> None:
        if self._launcher is not None:
            self._launcher.close()
            self._launcher = None
        if self.proc is None:
            return
        if not self.ready:  # still importing torch: it would read no message before it is done
            self.proc.kill()
        stop_server(self.proc, self.sock)
        self.proc = None
        self.ready = False


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    serve(int(sys.argv[1]))
