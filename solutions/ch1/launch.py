"""Chapter 1: what torchrun tells each process, and which device and backend it uses.

``torchrun --nnodes N --nproc-per-node P script.py`` starts P processes on each of N nodes and
tells every process where it stands through environment variables:

==================== ===========================================================
``RANK``             this process's rank among all processes, ``0 … WORLD_SIZE − 1``
``LOCAL_RANK``       its rank on its node, ``0 … LOCAL_WORLD_SIZE − 1``: which GPU it takes
``WORLD_SIZE``       how many processes there are in all (≥ 1)
``LOCAL_WORLD_SIZE`` how many on this node (≥ 1, at most ``WORLD_SIZE``)
``MASTER_ADDR``      the host of the rendezvous store (not empty)
``MASTER_PORT``      its port, ``1 … 65535``
==================== ===========================================================

``read_dist_env(env)`` reads them from ``env`` (a mapping such as ``os.environ``) into a
:class:`DistEnv`. Every variable must be there; the five numbers must be integers (Python's
``int()`` of the text) in the ranges above. Otherwise it raises ``ValueError`` whose message
names the variable that is wrong (for an inconsistent pair such as ``RANK`` ≥ ``WORLD_SIZE``,
either one).

``pick_backend(device)`` is the ``torch.distributed`` backend for a process computing on
``device`` (a ``torch.device`` or a string such as ``"cuda:1"``): ``"nccl"`` for CUDA devices,
``"gloo"`` for everything else.

``device_for(local_rank)`` is the device a process of that local rank computes on: GPU number
``local_rank`` (``torch.device("cuda", local_rank)``) when CUDA is available, the CPU otherwise.
It only asks torch whether CUDA is available; it changes no state.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class DistEnv:
    rank: int
    local_rank: int
    world_size: int
    local_world_size: int
    master_addr: str
    master_port: int


### BEGIN SOLUTION
NUMBERS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_PORT")


def _require(env: Mapping[str, str], name: str) -> str:
    if name not in env:
        raise ValueError(f"{name} is not set: launch with torchrun, or set it yourself")
    return env[name]


def _integer(env: Mapping[str, str], name: str) -> int:
    text = _require(env, name)
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not an integer") from None


def _check(ok: bool, name: str, why: str) -> None:
    if not ok:
        raise ValueError(f"{name} {why}")


### END SOLUTION


def read_dist_env(env: Mapping[str, str]) -> DistEnv:
    ### BEGIN SOLUTION
    rank, local_rank, world, local_world, port = (_integer(env, name) for name in NUMBERS)
    addr = _require(env, "MASTER_ADDR")
    _check(world >= 1, "WORLD_SIZE", f"is {world}; there is at least one process")
    _check(local_world >= 1, "LOCAL_WORLD_SIZE", f"is {local_world}; a node runs at least one process")
    _check(local_world <= world, "LOCAL_WORLD_SIZE", f"{local_world} is more than WORLD_SIZE {world}")
    _check(0 <= rank < world, "RANK", f"{rank} is not in 0 … WORLD_SIZE − 1 = {world - 1}")
    _check(0 <= local_rank < local_world, "LOCAL_RANK", f"{local_rank} is not in 0 … {local_world - 1}")
    _check(bool(addr), "MASTER_ADDR", "is empty")
    _check(1 <= port <= 65535, "MASTER_PORT", f"{port} is not a port (1 … 65535)")
    return DistEnv(rank, local_rank, world, local_world, addr, port)
    ### END SOLUTION


def pick_backend(device: torch.device | str) -> str:
    ### BEGIN SOLUTION
    return "nccl" if torch.device(device).type == "cuda" else "gloo"
    ### END SOLUTION


def device_for(local_rank: int) -> torch.device:
    ### BEGIN SOLUTION
    return torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
    ### END SOLUTION
