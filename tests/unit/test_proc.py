"""graders.proc: framing over a socketpair, the serve loop, reaping, fd clean-up and log tails.

Whatever changes a process's state (reaping, closing fds, redirecting stdio, prctl) runs in a
forked child, so the pytest process keeps its own children, files and settings. No root needed.
"""

import json
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback

import pytest

from graders import proc

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")


def in_child(body, *, give_report_fd: bool = False):
    """``body()`` run in a forked child; returns what it returned (JSON over a pipe).

    ``give_report_fd``: call ``body(fd)`` with that pipe's descriptor, which it must keep open.
    """
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            data = json.dumps({"value": body(write) if give_report_fd else body()})
            code = 0
        except BaseException:  # noqa: BLE001 - the child must never return into pytest
            data = json.dumps({"error": traceback.format_exc()})
        finally:
            try:
                os.write(write, data.encode())
            finally:
                os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        reply = json.loads(fh.read() or b"{}")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, reply.get("error", f"child ended with {status}")
    return reply["value"]


def wait_until(predicate, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError
        time.sleep(0.005)


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


# -- framing -------------------------------------------------------------------------------------


def test_messages_keep_their_boundaries(pair):
    a, b = pair
    proc.send_msg(a, {"op": "spawn", "size": 2})
    proc.send_msg(a, ["second", 2.5, None])
    assert proc.recv_msg(b) == ({"op": "spawn", "size": 2}, [])
    assert proc.recv_msg(b) == (["second", 2.5, None], [])


def test_a_message_larger_than_the_socket_buffer_arrives_whole(pair):
    a, b = pair
    payload = os.urandom(3 * 1024 * 1024)
    sender = threading.Thread(target=proc.send_msg, args=(a, {"blob": payload}))
    sender.start()
    message, fds = proc.recv_msg(b)
    sender.join()
    assert message["blob"] == payload and fds == []


def test_file_descriptors_travel_with_a_message(pair):
    a, b = pair
    read, write = os.pipe()
    try:
        proc.send_msg(a, {"pid": 7}, [write])
        message, fds = proc.recv_msg(b)
        assert message == {"pid": 7} and len(fds) == 1 and fds[0] != write
        os.write(fds[0], b"through the passed fd")
        os.close(fds[0])
        assert os.read(read, 100) == b"through the passed fd"
    finally:
        os.close(read)
        os.close(write)


def test_a_closed_peer_is_eof(pair):
    a, b = pair
    a.close()
    with pytest.raises(EOFError):
        proc.recv_msg(b)


def test_a_message_cut_short_is_eof(pair):
    a, b = pair
    a.sendall(struct.pack("<I", 100) + b"only ten b")
    a.close()
    with pytest.raises(EOFError):
        proc.recv_msg(b)


# -- serving and reaping ---------------------------------------------------------------------------


def test_serve_requests_says_ready_handles_requests_and_reaps_until_exit(pair):
    ours, theirs = pair
    preloaded = []

    def handle(ctrl, request, fds):
        if request["op"] == "fork":  # a child that ends at once: the SIGCHLD handler reaps it
            pid = os.fork()
            if pid == 0:
                os._exit(9)
            wait_until(lambda: pid in proc.exit_statuses)
            proc.send_msg(ctrl, {"exit": os.waitstatus_to_exitcode(proc.exit_statuses[pid])})
        else:
            for fd in fds:
                os.close(fd)
            proc.send_msg(ctrl, {"echo": request, "fds": len(fds), "preloaded": preloaded})

    server = os.fork()
    if server == 0:
        try:
            ours.close()
            proc.serve_requests(theirs.fileno(), lambda: preloaded.append(True), handle)
        finally:
            os._exit(0)
    theirs.close()
    ours.settimeout(10)
    assert proc.recv_msg(ours)[0] == {"ready": server}
    read, write = os.pipe()
    proc.send_msg(ours, {"op": "echo", "n": 1}, [write])
    os.close(write)
    os.close(read)
    assert proc.recv_msg(ours)[0] == {"echo": {"op": "echo", "n": 1}, "fds": 1, "preloaded": [True]}
    proc.send_msg(ours, {"op": "fork"})
    assert proc.recv_msg(ours)[0] == {"exit": 9}
    proc.send_msg(ours, {"op": "exit"})
    _, status = os.waitpid(server, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with pytest.raises(EOFError):
        proc.recv_msg(ours)  # the server closed its end on the way out


def test_serve_requests_ends_when_the_client_goes_away(pair):
    ours, theirs = pair
    server = os.fork()
    if server == 0:
        try:
            ours.close()
            proc.serve_requests(theirs.fileno(), lambda: None, lambda *args: None)
        finally:
            os._exit(0)
    theirs.close()
    proc.recv_msg(ours)
    ours.close()
    _, status = os.waitpid(server, 0)
    assert os.waitstatus_to_exitcode(status) == 0


SERVER = """
import sys
from graders.proc import send_msg, serve_requests


def echo(ctrl, request, fds):
    send_msg(ctrl, request)


serve_requests(int(sys.argv[1]), lambda: print("preloaded"), echo)
"""


def test_a_started_server_is_awaited_used_and_stopped(pair, tmp_path):
    ours, theirs = pair
    with open(tmp_path / "server.log", "wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(theirs.fileno())], pass_fds=[theirs.fileno()], stdout=log
        )
    theirs.close()
    try:
        proc.await_ready(ours, 30, tmp_path / "server.log", "the test server did not start")
        proc.send_msg(ours, {"op": "echo"})
        assert proc.recv_msg(ours) == ({"op": "echo"}, [])
    finally:
        proc.stop_server(server, ours)
    assert server.returncode == 0 and ours.fileno() == -1
    assert (tmp_path / "server.log").read_text() == "preloaded\n"


def test_a_server_that_never_says_ready_is_reported_with_its_log(pair, tmp_path):
    ours, theirs = pair
    (tmp_path / "server.log").write_text("Traceback: ImportError: no torch here\n")
    with pytest.raises(LookupError, match=r"(?s)did not start \(timed out\):\n.*no torch here"):
        proc.await_ready(ours, 0.05, tmp_path / "server.log", "did not start", LookupError)
    theirs.close()
    with pytest.raises(RuntimeError, match="did not start"):
        proc.await_ready(ours, 5, tmp_path / "server.log", "did not start")
    assert ours.gettimeout() is None


def test_a_server_that_ignores_exit_is_killed(pair):
    ours, theirs = pair
    server = subprocess.Popen(["sleep", "30"])
    started = time.monotonic()
    proc.stop_server(server, ours, grace_s=0.1)
    assert server.returncode == -9 and time.monotonic() - started < 5 and ours.fileno() == -1


def test_reap_children_collects_ended_children_and_never_blocks():
    def body():
        statuses: dict[int, int] = {}
        proc.reap_children(statuses)  # no children at all
        assert statuses == {}
        ended = []
        for code in (0, 3, 7):
            pid = os.fork()
            if pid == 0:
                os._exit(code)
            ended.append(pid)
        read, write = os.pipe()
        running = os.fork()
        if running == 0:  # runs until the pipe closes
            os.close(write)
            os.read(read, 1)
            os._exit(5)
        os.close(read)

        def reaped(pids):
            proc.reap_children(statuses)
            return all(pid in statuses for pid in pids)

        wait_until(lambda: reaped(ended))
        assert running not in statuses
        os.close(write)
        wait_until(lambda: reaped([running]))
        return [os.waitstatus_to_exitcode(statuses[pid]) for pid in [*ended, running]]

    assert in_child(body) == [0, 3, 7, 5]


@linux_only
def test_die_with_parent_ends_a_process_with_its_parent():
    alive_read, alive_write = os.pipe()  # EOF once the orphan, the last holder of the write end, is gone
    parent = os.fork()
    if parent == 0:
        try:
            os.close(alive_read)
            ready_read, ready_write = os.pipe()
            if os.fork() == 0:
                proc.die_with_parent()
                os.write(ready_write, b"r")
                time.sleep(20)
                os._exit(0)
            os.read(ready_read, 1)  # its parent may die only once it asked to die with it
        finally:
            os._exit(0)
    os.close(alive_write)
    os.waitpid(parent, 0)
    ready, _, _ = select.select([alive_read], [], [], 10)
    assert ready and os.read(alive_read, 1) == b"", "the orphan outlived its parent"
    os.close(alive_read)


@linux_only
def test_a_subreaper_adopts_and_reaps_orphans():
    def body():
        proc.become_subreaper()
        read, write = os.pipe()
        middle = os.fork()
        if middle == 0:
            me = os.getpid()
            if os.fork() == 0:  # the orphan: reports its parent once the middle one is gone
                wait_until(lambda: os.getppid() != me)
                os.write(write, str(os.getppid()).encode())
                os._exit(4)
            os._exit(0)
        os.close(write)
        os.waitpid(middle, 0)
        adopted_by = int(os.read(read, 20))
        statuses: dict[int, int] = {}

        def reaped():
            proc.reap_children(statuses)
            return statuses

        wait_until(reaped)
        return adopted_by == os.getpid(), [os.waitstatus_to_exitcode(s) for s in statuses.values()]

    assert in_child(body) == [True, [4]]


# -- descriptors and logs ------------------------------------------------------------------------


def test_close_fds_except_keeps_stdio_and_the_named_ones():
    def body(report_fd):
        opened = [fd for pair in (os.pipe(), os.pipe(), os.pipe()) for fd in pair]
        keep = opened[3]
        proc.close_fds_except(keep, report_fd)
        still_open = []
        for fd in [0, 1, 2, *opened]:
            try:
                os.fstat(fd)
                still_open.append(fd)
            except OSError:
                pass
        return still_open, keep, report_fd, [int(fd) for fd in os.listdir("/dev/fd")]

    still_open, keep, report_fd, listed = in_child(body, give_report_fd=True)
    assert still_open == [0, 1, 2, keep]
    # what is left: stdio, the two kept, and the one listdir opens to list them
    assert len(listed) == 6 and {0, 1, 2, keep, report_fd} <= set(listed)


def test_redirect_stdio_sends_output_to_the_log_and_reads_nothing(tmp_path):
    log = tmp_path / "child.log"

    def body():
        log_fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o644)
        proc.redirect_stdio(log_fd)
        os.write(1, b"out ")
        os.write(2, b"err")
        try:
            os.fstat(log_fd)
            closed = False
        except OSError:
            closed = True
        return os.read(0, 10).decode(), closed

    assert in_child(body) == ["", True]
    assert log.read_bytes() == b"out err"


def test_tail_file(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(b"a" * 5000 + b"the end\xff")
    assert proc.tail_file(path, 8) == "the end\ufffd"
    assert proc.tail_file(path) == ("a" * 5000 + "the end\ufffd")[-3000:]
    short = tmp_path / "short"
    short.write_text("short log")
    assert proc.tail_file(short, 3000) == "short log"
    assert proc.tail_file(tmp_path / "missing") == ""
