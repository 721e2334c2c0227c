"""The worker process: one rank of a persistent world (gloo, or NCCL: :mod:`graders.world.backend`).

Forked by the fork server (:mod:`graders.world.fork_server`) for every rank of a world. It
joins the process group once, then serves tasks until its connection closes. Messages from the driver
are trusted (pickled); every message back is encoded with :mod:`graders.world.wire`.
"""

from __future__ import annotations

import faulthandler
import io
import os
import pickle
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from datetime import timedelta
from multiprocessing.connection import Connection

STDOUT_TAIL = 4000
LOG_LIMIT = 16000


class TailBuffer(io.TextIOBase):
    """Stands in for sys.stdout/sys.stderr: keeps only the last few KB a task printed."""

    def __init__(self, limit: int = STDOUT_TAIL, echo=None) -> None:
        self.limit = limit
        self.echo = echo
        self.parts: list[str] = []
        self.size = 0
        self.total = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        self.parts.append(text)
        self.size += len(text)
        if self.total < LOG_LIMIT and self.echo is not None:
            # Echo the start of the output to the rank's log: a hang report can show it.
            _write_to_log(self.echo, text[: LOG_LIMIT - self.total])
        self.total += len(text)
        if self.size > 4 * self.limit:
            self._compact()
        return len(text)

    def _compact(self) -> None:
        joined = "".join(self.parts)[-self.limit :]
        self.parts, self.size = [joined], len(joined)

    def take(self) -> str:
        self._compact()
        text = self.parts[0] if self.parts else ""
        if self.total > len(text):
            text = f"[... {self.total - len(text)} characters cut ...]\n" + text
        self.parts, self.size, self.total = [], 0, 0
        return text


def _write_to_log(log, text: str = "") -> None:
    """Best effort: a log that cannot grow (a full disk, RLIMIT_FSIZE) must not end the rank."""
    try:
        log.write(text)
        log.flush()
    except OSError:
        pass


@dataclass(frozen=True)
class WorkerArgs:
    rank: int
    world_size: int
    store_port: int
    conn_fd: int
    dir: str
    pg_timeout: float
    placement: object  # graders.world.backend.Placement
    store_host: str = "127.0.0.1"
    store_prefix: str = ""  # a rank host's world shares the job's store under its own prefix


class TaskServer:
    """One rank that runs grader tasks: its status board, note, stack file and captured output,
    its recorder and state guard. :class:`Worker` is one that joined a persistent world; a rank of
    a world torchrun's launcher started (:mod:`graders.world.launched.ranks`) is another, whose graded
    program makes its process group itself."""

    #: the task must leave the world's process group alive (a persistent world's is shared)
    keeps_group = True
    #: where this rank computes: ``cuda:i`` in an NCCL world (:mod:`graders.world.backend`)
    device = "cpu"

    def __init__(self, rank: int, world_size: int, dir: str) -> None:
        self.rank = rank
        self.world_size = world_size
        self.dir = dir
        self.status_fd = os.open(os.path.join(self.dir, f"status-{self.rank}"), os.O_RDWR | os.O_CREAT)
        self.note_fd = os.open(os.path.join(self.dir, f"note-{self.rank}"), os.O_RDWR | os.O_CREAT)
        self.stack_file = open(os.path.join(self.dir, f"stack-{self.rank}"), "w+")  # noqa: SIM115
        faulthandler.enable(file=self.stack_file, all_threads=True)
        faulthandler.register(signal.SIGUSR1, file=self.stack_file, all_threads=True, chain=False)
        self.groups: dict[tuple[int, ...], object] = {}
        self.stdout = TailBuffer(echo=sys.__stdout__)
        self.stderr = TailBuffer(echo=sys.__stdout__)
        #: whether the graded modules have been purged since graded code last ran: a task that
        #: ended normally purged them as it ended; the next one purges again only if it did not
        self.purged = False

    def _install_recorder(self) -> None:
        import torch

        torch.set_num_threads(1)
        from graders.comm.recorder import Recorder

        self.recorder = Recorder(self.status_fd)
        self.recorder.install()

    def _install_state_guard(self) -> None:
        """The state guard's snapshot of torch and the kit's task modules (after the process group
        exists: joining one sets attributes the snapshot must hold)."""
        import graders.comm.recorder
        import graders.world.graded_import
        import graders.world.task
        import graders.world.values
        import graders.world.wire

        kit_modules = (
            graders.world.task,
            graders.comm.recorder,
            graders.world.graded_import,
            graders.world.wire,
            graders.world.values,
            sys.modules[__name__],
        )
        self.state_guard = graders.world.graded_import.StateGuard(extra_modules=kit_modules)

    def set_note(self, text: str) -> None:
        """What the grader says this rank is doing, shown in a hang or crash report."""
        data = text.encode("utf-8", "replace")[:1000]
        try:
            os.pwrite(self.note_fd, data.ljust(1024, b" "), 0)
        except OSError:  # a full disk: the note is diagnostic only and must not end the rank
            pass

    def run_task(self, message: dict) -> dict:
        import torch.distributed as dist

        from graders.comm import backend_hold
        from graders.errors import TODO_MARKER, BannedCallError
        from graders.impl import ImplLocation
        from graders.training import python_heap
        from graders.world.graded_import import MissingModule, purge_student_modules, reset_numerics
        from graders.world.task import TaskContext, resolve

        started = time.perf_counter()
        self.stack_file.seek(0)
        self.stack_file.truncate()
        _write_to_log(sys.__stdout__)
        os.ftruncate(1, 0)  # the log is opened O_APPEND: each task starts a fresh one
        if not self.purged:
            purge_student_modules()
        self.purged = False
        backend_hold.release_kept()  # no tracing runs between tasks (see the module)
        self.set_note("")
        reset_numerics(message.get("seed", 0))
        fn = resolve(message["task"])
        location = ImplLocation.from_wire(message["location"])
        ctx = TaskContext(self, fn.dtlab_task, location)
        sys.stdout, sys.stderr = self.stdout, self.stderr
        reply: dict = {}
        python_heap.task_starts(message["case"])
        try:
            reply["value"] = fn(ctx, message["case"])
        except MissingModule as exc:
            reply["missing"] = exc.filename
        except NotImplementedError as exc:
            if str(exc).startswith(TODO_MARKER):
                reply["todo"] = str(exc)
            else:
                reply["error"] = _describe_error(exc, location.graded_root, "exception")
        except BannedCallError as exc:
            reply["error"] = _describe_error(exc, location.graded_root, "banned")
        except BaseException as exc:  # noqa: BLE001 - student code may raise anything, SystemExit too
            reply["error"] = _describe_error(exc, location.graded_root, "exception")
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
            self.recorder.end()
        kept = python_heap.take_finding()
        if kept and "value" in reply:
            reply["python_kept"] = kept
        reply["trace"] = [list(e) for e in self.recorder.take()]
        reply["stdout"] = self.stdout.take() + self.stderr.take()
        tampered = self.state_guard.restore() + self.recorder.rebound
        self.recorder.rebound = []
        if tampered:
            reply["tampered"] = sorted(set(tampered))[:50]
        if self.keeps_group and not dist.is_initialized():
            reply["dirty"] = "the process group was destroyed"
        purge_student_modules()
        self.purged = True
        reply["seconds"] = time.perf_counter() - started
        return reply


class Worker(TaskServer):
    def __init__(self, args: WorkerArgs) -> None:
        super().__init__(args.rank, args.world_size, args.dir)
        self.conn = Connection(args.conn_fd)
        self.tasks_served = 0
        self._join(args)

    def run_task(self, message: dict) -> dict:
        self._fresh_store_for_new_groups()
        return super().run_task(message)

    def _fresh_store_for_new_groups(self) -> None:
        """Groups made in this task rendezvous under keys of their own. A group made with
        ``new_group(..., use_local_synchronization=True)`` is named by a hash of its ranks, so the
        same group made again in a later task (the kit destroys what a task made) would find the
        earlier group's addresses still in the world's store. Every rank serves the same tasks in
        the same order, so the prefix agrees across ranks."""
        import torch.distributed as dist

        from graders.infra import torch_compat

        self.tasks_served += 1
        prefix = f"dtlab-task-{self.tasks_served}/"
        torch_compat.swap_default_store(lambda backend: dist.PrefixStore(prefix, self.store))

    def _join(self, args: WorkerArgs) -> None:
        import torch.distributed as dist

        self._install_recorder()
        store = dist.TCPStore(
            args.store_host, args.store_port, is_master=False, timeout=timedelta(seconds=60)
        )
        if args.store_prefix:
            store = dist.PrefixStore(args.store_prefix, store)
        self.store = store
        join_process_group(self, store, args.placement, args.pg_timeout)
        self._install_state_guard()

    def group(self, ranks: tuple[int, ...] | None):
        import torch.distributed as dist

        if ranks is None or tuple(ranks) == tuple(range(self.world_size)):
            return None if ranks is None else dist.group.WORLD
        key = tuple(ranks)
        if key not in self.groups:
            self.groups[key] = dist.new_group(list(key))
        return self.groups[key]

    def serve(self) -> None:
        from graders.world import wire

        self.conn.send_bytes(wire.encode({"ready": self.rank, "pid": os.getpid()}))
        while True:
            try:
                raw = self.conn.recv_bytes()
            except (EOFError, OSError):
                return
            message = pickle.loads(raw)
            if message.get("op") == "exit":
                return
            self.conn.send_bytes(encode_reply(self.run_task(message)))


def join_process_group(server: TaskServer, store, placement, pg_timeout: float) -> None:
    """Join the world's default group on ``placement``'s backend; an NCCL rank takes its GPU
    first, and its collectives wait as long as the kit's deadline needs (the kit reports hangs)."""
    import torch
    import torch.distributed as dist

    from graders.world.backend import exact_float32, quiet_nccl_watchdog

    device_id = None
    if placement.backend == "nccl":
        quiet_nccl_watchdog()
        server.device = placement.device(server.rank)
        device_id = torch.device(server.device)
        torch.cuda.set_device(device_id)
        exact_float32()
    dist.init_process_group(
        placement.process_group_backend,
        store=store,
        rank=server.rank,
        world_size=server.world_size,
        timeout=timedelta(seconds=pg_timeout),
        device_id=device_id,
    )


def encode_reply(reply: dict) -> bytes:
    """A task's reply in the wire format, or a kit error saying why it could not be encoded."""
    from graders.world import wire

    try:
        return wire.encode(reply)
    except TypeError as exc:
        return wire.encode(
            {
                "error": {
                    "type": "TypeError",
                    "message": f"the task returned something that cannot be sent back: {exc}",
                    "traceback": "",
                    "kind": "kit",
                },
                "trace": [],
            }
        )


def _describe_error(exc: BaseException, student_root: str, kind: str) -> dict:
    """Exception type, message and the traceback restricted to the student's own frames."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if f.filename.startswith(student_root)]
    lines = [
        f'  File "{os.path.basename(f.filename)}", line {f.lineno}, in {f.name}\n    {f.line}' for f in own
    ]
    if isinstance(exc, SyntaxError) and exc.filename:
        lines.append(
            f'  File "{os.path.basename(exc.filename)}", line {exc.lineno}\n    {(exc.text or "").strip()}'
        )
    return {
        "type": type(exc).__name__,
        "message": str(exc)[:2000],
        "traceback": "\n".join(lines[-8:]),
        "kind": kind,
        "in_student_code": bool(own) or isinstance(exc, SyntaxError),
    }
