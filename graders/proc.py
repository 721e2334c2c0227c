"""Process plumbing shared by the kit's servers and the processes they fork (POSIX; no torch).

Two trusted servers fork the kit's processes: the world's fork server
(:mod:`graders.world.fork_server`, which forks ranks) and the warm grading server
(:mod:`graders.grading.warm`, which forks a supervisor and a driver per submission). Both, and
their clients, use what is here:

* **framing**: pickled messages with a length prefix on a Unix socket, optionally carrying file
  descriptors (``SCM_RIGHTS``); for trusted peers only, never for anything graded code can write;
* **serving**: :func:`serve_requests`, the loop of a server forked or started by its client, and
  the client's :func:`await_ready` and :func:`stop_server`;
* **reaping**: :func:`reap_children`, and the subreaper and parent-death settings of Linux;
* **descriptors**: :func:`redirect_stdio` and :func:`close_fds_except` for a freshly forked
  process that must not keep its parent's files;
* **logs**: :func:`tail_file`, the end of a log for an error message.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
#: Descriptors from here on are left open by :func:`close_fds_except`.
MAX_FD = 65536

# -- framing -------------------------------------------------------------------------------------


def send_msg(sock: socket.socket, obj: object, fds: list[int] | None = None) -> None:
    """Send ``obj`` pickled, with a 4-byte length prefix, and ``fds`` alongside (``SCM_RIGHTS``)."""
    data = pickle.dumps(obj)
    header = struct.pack("<I", len(data))
    if fds:
        socket.send_fds(sock, [header + data], fds)
    else:
        sock.sendall(header + data)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_msg(sock: socket.socket) -> tuple[object, list[int]]:
    """One framed message, with the file descriptors that came along with it (if any).

    Raises :class:`EOFError` when the peer has closed its end.
    """
    header, fds, _flags, _addr = socket.recv_fds(sock, 4, 16)
    if not header:
        raise EOFError
    header += _recv_exact(sock, 4 - len(header))
    (length,) = struct.unpack("<I", header)
    return pickle.loads(_recv_exact(sock, length)), list(fds)


# -- serving -------------------------------------------------------------------------------------

#: What this process's SIGCHLD handler reaped (pid -> wait status), in a :func:`serve_requests` server.
exit_statuses: dict[int, int] = {}


def reap_children(into: dict[int, int]) -> None:
    """Collect the exit status of every child that has ended (never blocks)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        into[pid] = status


def _reap_on_sigchld(signum=None, frame=None) -> None:
    reap_children(exit_statuses)


Handler = Callable[[socket.socket, dict, list[int]], None]


def serve_requests(ctrl_fd: int, preload: Callable[[], None], handle: Handler) -> None:
    """Serve the client at the other end of ``ctrl_fd`` until it closes it or sends ``{"op": "exit"}``.

    The server dies with its parent, runs ``preload`` (the imports every fork shares), reaps its
    children into :data:`exit_statuses`, says ``{"ready": pid}``, then calls
    ``handle(ctrl, request, fds)`` for each request (``fds`` came with it and are the handler's).
    """
    die_with_parent()
    preload()
    signal.signal(signal.SIGCHLD, _reap_on_sigchld)
    ctrl = socket.socket(fileno=ctrl_fd)
    send_msg(ctrl, {"ready": os.getpid()})
    while True:
        try:
            request, fds = recv_msg(ctrl)
        except (EOFError, OSError):
            return
        if request.get("op") == "exit":
            return
        handle(ctrl, request, fds)


def await_ready(
    sock: socket.socket,
    timeout: float,
    log_path: str | os.PathLike,
    failure: str,
    error: type[Exception] = RuntimeError,
) -> None:
    """Wait for the ``{"ready": pid}`` of the server at the other end of ``sock``.

    When it closes its end, or says nothing within ``timeout`` seconds, raises ``error`` with
    ``failure``, the reason and the end of the server's log.
    """
    sock.settimeout(timeout)
    try:
        recv_msg(sock)
    except (EOFError, OSError) as exc:
        raise error(f"{failure} ({exc}):\n{tail_file(log_path)}") from None
    finally:
        sock.settimeout(None)


def stop_server(server: subprocess.Popen, sock: socket.socket, grace_s: float = 5.0) -> None:
    """Ask a :func:`serve_requests` server to exit, kill it after ``grace_s``, and close ``sock``."""
    try:
        send_msg(sock, {"op": "exit"})
    except OSError:
        pass
    try:
        server.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    sock.close()


# -- Linux process controls ----------------------------------------------------------------------

_libc = None


def libc() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    return _libc


def check(result: int, what: str) -> None:
    """Raise :class:`OSError` (with ``errno``) when a libc call returned non-zero."""
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def prctl(option: int, value: int) -> None:
    check(libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl({option})")


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies, so nothing is ever orphaned.

    Linux only; elsewhere it does nothing.
    """
    if sys.platform.startswith("linux"):
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def become_subreaper() -> None:
    """Adopt (and so reap) whatever this process's descendants leave orphaned (Linux only)."""
    if sys.platform.startswith("linux"):
        prctl(PR_SET_CHILD_SUBREAPER, 1)


# -- descriptors and logs ------------------------------------------------------------------------


def redirect_output(log_fd: int) -> None:
    """Send stdout and stderr to ``log_fd``, which is then closed."""
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    if log_fd > 2:
        os.close(log_fd)


def redirect_stdio(log_fd: int) -> None:
    """Read stdin from ``/dev/null``; stdout and stderr go to ``log_fd``, which is then closed."""
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    if null_fd > 2:
        os.close(null_fd)
    redirect_output(log_fd)


def close_fds_except(*keep: int) -> None:
    """Close every file descriptor below :data:`MAX_FD` but stdin, stdout, stderr and ``keep``."""
    kept = sorted({0, 1, 2, *keep})
    for low, high in zip(kept, [*kept[1:], MAX_FD]):
        os.closerange(low + 1, high)


def tail_file(path: str | os.PathLike, nbytes: int = 3000) -> str:
    """The last ``nbytes`` of a file, decoded leniently ("" when it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - nbytes))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
