"""Which ``torch.distributed`` backend a world of N ranks runs on, and each rank's device.

``--backend auto`` (the default) takes NCCL when every rank of the world can have a GPU of its
own, and gloo otherwise; ``gloo`` is gloo everywhere; ``nccl`` is NCCL or nothing: a world with
more ranks than GPUs is not started, and its test is skipped ("needs ≥ N GPUs").

An NCCL world's default group is ``cpu:gloo,cuda:nccl``: tensors a task moved to its rank's GPU
(``TaskContext.to_device``) travel by NCCL, and the CPU tensors of tasks that keep them there
(the kit's own synchronisation, the chapters graded on the CPU) by gloo, in the same group.

The GPUs are counted in the driver without initialising CUDA (``torch.cuda.device_count`` asks
NVML), so the fork server and the ranks it forks can still use CUDA.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

BACKENDS = ("auto", "gloo", "nccl")
#: the default group of an NCCL world: the kit's CPU tensors still have a backend
NCCL_WITH_CPU = "cpu:gloo,cuda:nccl"


class NeedsHardware(Exception):
    """The world a case needs cannot be made on this machine: its test is skipped, not failed."""


@dataclass(frozen=True)
class Placement:
    """What a world of ``size`` ranks runs on: ``backend`` (``gloo`` or ``nccl``) and ``gpus``
    (how many the ranks share round-robin: rank r computes on ``cuda:{r % gpus}``), unless
    ``devices`` names each rank's (ranks on several machines: their local rank's GPU)."""

    backend: str = "gloo"
    gpus: int = 0
    devices: tuple[str, ...] = ()

    @property
    def process_group_backend(self) -> str:
        return NCCL_WITH_CPU if self.backend == "nccl" else "gloo"

    def device(self, rank: int) -> str:
        if self.backend != "nccl":
            return "cpu"
        return self.devices[rank] if self.devices else f"cuda:{rank % self.gpus}"


def gpu_count() -> int:
    """GPUs this process may use, counted without initialising CUDA (0 on a CPU build)."""
    import torch

    if not torch.backends.cuda.is_built():
        return 0
    return torch.cuda.device_count()


def place(requested: str, size: int, gpus: int) -> Placement:
    """The placement of a world of ``size`` ranks for ``--backend requested`` with ``gpus`` GPUs.

    Raises :class:`NeedsHardware` for ``nccl`` with fewer GPUs than ranks, and ``ValueError`` for
    a backend the kit does not know."""
    if requested not in BACKENDS:
        raise ValueError(f"unknown backend {requested!r}: choose one of {', '.join(BACKENDS)}")
    if requested == "gloo" or (requested == "auto" and not 0 < size <= gpus):
        return Placement("gloo", 0)
    if size > gpus:
        raise NeedsHardware(f"needs ≥ {size} GPU{'s' if size > 1 else ''} for NCCL ({gpus} present)")
    return Placement("nccl", gpus)


def quiet_nccl_watchdog(environ=os.environ) -> None:
    """A rank's NCCL must not end the process on a collective that waits: the kit's deadline and
    its status board report a hang (as on gloo), so NCCL's watchdog only logs."""
    environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "0")
    environ.setdefault("TORCH_NCCL_ENABLE_MONITORING", "0")
    environ.setdefault("TORCH_NCCL_DUMP_ON_TIMEOUT", "0")


def exact_float32() -> None:
    """No TF32 in matmuls and convolutions: graded results are compared with a reference
    computed in full float32 (or float64)."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
