"""A world that torchrun's own launcher starts, for one task: the agent and its ranks.

An exercise whose graded code is a whole program (``torchrun --nproc-per-node 2 script.py``)
cannot run in a persistent world: it makes its own process group from the variables torchrun
sets, trains, and destroys it. So the fork server forks an *agent* (:func:`serve_launch`) that
runs ``torch.distributed``'s elastic launcher, ``elastic_launch``, the code behind the
``torchrun`` command: c10d rendezvous on loopback, ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT`` and ``TORCHELASTIC_*`` set for each rank,
the ranks watched and stopped together when one fails. Its ranks are *forked* from the agent
(torchrun's ``--start-method fork``) rather than started as new interpreters, because a graded
program may run where no program can be started (the batch sandbox has no loader) and because
torch is then imported once, by the fork server.

Each rank (:func:`_rank_main`) is a :class:`graders.world.worker.TaskServer`: the kit's recorder
and guard installed, the task run as in a persistent world (``ctx.run_script`` runs the graded
module as ``__main__``), and its reply written, in the restricted wire format, to
``reply-<rank>`` in the launch folder (atomically: a rank killed while writing leaves none). The
driver (:mod:`graders.world.launched.world`) reads the replies, and the status boards, notes,
stacks and logs when a rank hangs or dies. The agent writes each failed rank's exit code to
``exits.json``.
"""

from __future__ import annotations

import json
import os
import signal
import uuid

from graders.proc import redirect_output
from graders.world.worker import TaskServer, encode_reply

REPLY = "reply-{rank}"
EXITS = "exits.json"
#: how often the agent looks at its ranks (torchrun's default is 0.1 s)
MONITOR_S = 0.05


#: torch asks NVML, not the CUDA runtime, whether CUDA is available (and so does not initialise it)
NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"


def preload() -> None:
    """What an agent and its ranks import, once, in the fork server."""
    import torch.distributed.elastic.multiprocessing  # noqa: F401
    import torch.distributed.launcher.api  # noqa: F401
    import torch.utils.data  # noqa: F401


def serve_launch(request: dict) -> None:
    """The agent: launch ``request["size"]`` ranks of :func:`_rank_main` as torchrun would."""
    from torch.distributed.elastic.multiprocessing import DefaultLogsSpecs, Std
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the fork server's reaper must not take our ranks
    # torch's LaunchConfig asks torch.cuda.is_available(): through NVML, so that this agent does
    # not initialise CUDA, which would leave every rank it forks unable to use a GPU. The ranks
    # get the variable back as it was: graded code's own question goes through torch's C++, as
    # anywhere else (NVML is reached by ctypes, which graded code may not call)
    request["nvml_check"] = os.environ.get(NVML_CHECK)
    os.environ[NVML_CHECK] = "1"
    if not request.get("gpus"):  # a world of more ranks than GPUs (or gloo chosen): a CPU machine
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    config = LaunchConfig(
        min_nodes=1,
        max_nodes=1,
        nproc_per_node=request["size"],
        run_id=f"dtlab-{uuid.uuid4().hex[:8]}",
        rdzv_backend="c10d",
        rdzv_endpoint="127.0.0.1:0",
        max_restarts=0,
        monitor_interval=MONITOR_S,
        start_method="fork",
        local_addr="127.0.0.1",
        logs_specs=DefaultLogsSpecs(log_dir=os.path.join(request["dir"], "elastic"), redirects=Std.NONE),
    )
    try:
        elastic_launch(config, _rank_main)(request)
    except ChildFailedError as failed:
        exits = {str(local_rank): failure.exitcode for local_rank, failure in failed.failures.items()}
        _write_atomically(os.path.join(request["dir"], EXITS), json.dumps(exits).encode())
        os._exit(1)
    os._exit(0)


def _rank_main(request: dict) -> None:
    if request.get("nvml_check") is None:
        os.environ.pop(NVML_CHECK, None)
    else:
        os.environ[NVML_CHECK] = request["nvml_check"]
    if request.get("gpus"):  # CUDA set up by the kit, as in a persistent NCCL world: torch's lazy
        import torch  # initialisation reaches NVML through ctypes, which graded code may not call

        torch.cuda.init()
    rank, size, folder = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), request["dir"]
    with open(os.path.join(folder, f"pid-{rank}"), "w") as pid_file:
        pid_file.write(str(os.getpid()))
    log_fd = os.open(os.path.join(folder, f"log-{rank}"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    redirect_output(log_fd)
    server = LaunchedRank(rank, size, folder)
    reply = encode_reply(server.run_task(request["message"]))
    _write_atomically(os.path.join(folder, REPLY.format(rank=rank)), reply)
    os._exit(0)  # no destructor runs: freeing a gloo group can deadlock (Recorder.keep_groups)


def _write_atomically(path: str, data: bytes) -> None:
    partial = f"{path}.partial"
    with open(partial, "wb") as file:
        file.write(data)
    os.replace(partial, path)


class LaunchedRank(TaskServer):
    """A rank of a launched world: no process group of the kit's (the program makes its own, and
    may destroy it)."""

    keeps_group = False

    def __init__(self, rank: int, world_size: int, folder: str) -> None:
        super().__init__(rank, world_size, folder)
        self._install_recorder()
        self.recorder.keep_groups = True
        self._install_state_guard()
