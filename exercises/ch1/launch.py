# Generated from solutions/ch1/launch.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
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


def read_dist_env(env: Mapping[str, str]) -> DistEnv:
    raise NotImplementedError("[dtlab TODO] ch1/launch.py: implement read_dist_env")


def pick_backend(device: torch.device | str) -> str:
    raise NotImplementedError("[dtlab TODO] ch1/launch.py: implement pick_backend")


def device_for(local_rank: int) -> torch.device:
    raise NotImplementedError("[dtlab TODO] ch1/launch.py: implement device_for")
