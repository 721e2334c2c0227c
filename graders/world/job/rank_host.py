"""A rank host: one process of a torchrun-launched job, lending its rank to the driver's worlds.

Each process ``torchrun … -m graders.run chN`` starts is a host (:mod:`graders.world.job.cluster`
has the protocol). It starts a fork server of its own (torch imported once), and for every
world of N ranks the driver makes with N above its rank it forks the world's rank of that
number, which joins the world's process group through the job's store. It relays the driver's
tasks to that rank and the rank's replies back, and answers the driver's questions about it
(a file's tail, its Python stack, how it ended) from its own machine. Ranks are killed and
forked again when the driver restarts a world, as in a persistent world on one machine.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from graders.proc import tail_file
from graders.world.fork_server import ForkServer
from graders.world.job.cluster import CLOSED, MESSAGE, PREFIX, connect_store
from graders.world.process_world import exit_reason_of

#: what torchrun sets for its processes, kept from the worker worlds (their ranks are the kit's)
TORCHRUN_VARIABLES = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "GROUP_WORLD_SIZE",
    "ROLE_RANK",
    "ROLE_NAME",
    "ROLE_WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
)


def is_torchrun_variable(name: str) -> bool:
    return name in TORCHRUN_VARIABLES or name.startswith("TORCHELASTIC_")


def without_torchrun(environ: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in environ.items() if not is_torchrun_variable(name)}


@dataclass
class HostedRank:
    """This host's rank of one world."""

    pid: int
    pgid: int
    conn: Connection
    dir: str
    relay: threading.Thread | None = field(default=None, repr=False)


class RankHost:
    def __init__(self, rank: int, local_rank: int, store_host: str, store_port: int, base_dir: str) -> None:
        self.rank = rank
        self.local_rank = local_rank
        self.store_host, self.store_port = store_host, store_port
        self.base_dir = base_dir
        # the main thread's, which blocks in get until the next command
        self.commands = connect_store(store_host, store_port, timeout_s=3600)
        self.replies = connect_store(store_host, store_port)  # the relays' and the probes'
        self.worlds: dict[int, HostedRank] = {}
        loopback = store_host in ("127.0.0.1", "localhost", "::1")
        interface = os.environ.get("GLOO_SOCKET_IFNAME") or ("lo" if loopback else None)
        environ = {name: None for name in os.environ if is_torchrun_variable(name)}
        environ["GLOO_SOCKET_IFNAME"] = interface
        self.fork_server = ForkServer(base_dir, environ=environ, in_process=True)  # torch is imported

    def announce(self) -> None:
        """Tell the driver what this host has (its GPUs are counted without initialising CUDA)."""
        import json

        from graders.world.backend import gpu_count

        self.fork_server.start()  # it imports torch while the others announce
        info = {"local_rank": self.local_rank, "gpus": gpu_count(), "pid": os.getpid()}
        self.commands.set(f"hosts/{self.rank}", json.dumps(info))

    def serve(self) -> None:
        """Carry out the driver's commands, in order, until it says ``exit`` or the store is gone."""
        from torch.distributed import DistStoreError

        count = 0
        while True:
            try:
                command = pickle.loads(self.commands.get(f"cmd/{count}"))
            except DistStoreError:  # an hour without a command: still waiting
                continue
            except RuntimeError:  # the store's host went away: the job is over
                return
            count += 1
            if command["op"] == "exit":
                return
            if command.get("world") in self.worlds or command["op"] == "spawn":
                getattr(self, f"_{command['op']}")(command)

    def _spawn(self, command: dict) -> None:
        if self.rank >= command["size"]:
            return
        world = command["world"]
        folder = tempfile.mkdtemp(prefix=f"world{command['size']}-{world}-", dir=self.base_dir)
        [(pid, pgid, conn)] = self.fork_server.spawn(
            command["size"],
            folder,
            self.store_port,
            command["pg_timeout"],
            command["placement"],
            ranks=[self.rank],
            store_host=self.store_host,
            store_prefix=f"{PREFIX}/w{world}/pg",
        )
        hosted = HostedRank(pid, pgid, conn, folder)
        hosted.relay = threading.Thread(target=self._relay, args=(world, hosted), daemon=True)
        hosted.relay.start()
        self.worlds[world] = hosted

    def _relay(self, world: int, hosted: HostedRank) -> None:
        """Everything the rank sends, to the store in order; then that its channel closed."""
        index = 0
        while True:
            try:
                data = MESSAGE + hosted.conn.recv_bytes()
            except (EOFError, OSError):
                data = CLOSED
            try:
                self.replies.set(f"w{world}/out/{self.rank}/{index}", data)
            except RuntimeError:
                return
            index += 1
            if data == CLOSED:
                return

    def _task(self, command: dict) -> None:
        try:
            self.worlds[command["world"]].conn.send_bytes(command["payload"])
        except OSError:
            pass  # the rank is gone: its relay says so

    def _kill(self, command: dict) -> None:
        hosted = self.worlds.pop(command["world"])
        try:
            os.killpg(hosted.pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        hosted.conn.close()
        shutil.rmtree(hosted.dir, ignore_errors=True)

    def _probe(self, command: dict) -> None:
        if self.rank not in command["ranks"]:
            return
        hosted = self.worlds[command["world"]]
        what = command["what"]
        if what == "file":
            answer = tail_file(os.path.join(hosted.dir, os.path.basename(command["name"])), command["tail"])
        elif what == "stacks":
            try:
                os.kill(hosted.pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass
            time.sleep(command["settle"])
            answer = tail_file(os.path.join(hosted.dir, f"stack-{self.rank}"), 6000)
        else:  # "exit"
            answer = exit_reason_of(
                self.fork_server.exit_statuses([hosted.pid], command["wait"]).get(hosted.pid)
            )
        self.replies.set(f"probe/{command['id']}/{self.rank}", pickle.dumps(answer))

    def close(self) -> None:
        for world in list(self.worlds):
            self._kill({"world": world})
        self.fork_server.close()
        shutil.rmtree(self.base_dir, ignore_errors=True)
