"""Chapter 4's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import COLLECTIVES, PYTHON_HEAP_COUNTED, TORCH_DDP, TORCH_FSDP
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
    "ch4",
    "Data parallelism",
    "Song song dữ liệu",
    (
        *exercises_of(
            "ch4",
            "param_server",
            (
                "param_server",
                {"result": 2, "traffic": 2},
                "parameter server: gather, average, update, send back",
                "param_server_step",
            ),
            banned=COLLECTIVES,
        ),
        *exercises_of(
            "ch4",
            "ddp",
            (
                "ddp",
                {"result": 3, "buckets": 2, "overlap": 2, "no_sync": 2, "torch": 1},
                "DDP: bucketed all-reduce overlapped with backward",
                "DDP",
            ),
            banned=TORCH_DDP,
        ),
        *exercises_of(
            "ch4",
            "fsdp",
            (
                "fsdp",
                {"result": 3, "memory": 2, "traffic": 2},
                "sharded data parallelism: flat parameter, gather, reduce-scatter",
                "ShardedDataParallel",
            ),
            banned=TORCH_DDP | TORCH_FSDP,
            measured_memory=True,
            scan_allows=PYTHON_HEAP_COUNTED,
        ),
    ),
)
