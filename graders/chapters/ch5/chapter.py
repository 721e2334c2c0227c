"""Chapter 5's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import PYTHON_HEAP_COUNTED, ZERO_BANNED
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
    "ch5",
    "ZeRO",
    "Họ ZeRO",
    (
        *exercises_of(
            "ch5",
            "zero",
            (
                "zero1",
                {"result": 2, "memory": 2, "traffic": 1, "crosscheck": 1},
                "ZeRO-1: partitioned optimizer state",
                "Zero1Optimizer",
            ),
            (
                "zero2",
                {"result": 2, "memory": 2, "traffic": 2},
                "ZeRO-2: gradients reduce-scattered in backward",
                "Zero2Optimizer",
            ),
            (
                "zero3",
                {"result": 2, "memory": 2, "traffic": 2},
                "ZeRO-3: parameters gathered layer by layer",
                "Zero3Module",
            ),
            banned=ZERO_BANNED,
            measured_memory=True,
            scan_allows=PYTHON_HEAP_COUNTED,
        ),
        *exercises_of(
            "ch5",
            "offload",
            (
                "offload",
                {"result": 2, "placement": 1},
                "ZeRO-Offload: fp32 master weights and step on the host",
                "OffloadOptimizer",
            ),
            banned=ZERO_BANNED,
            multi_rank=False,
        ),
        *exercises_of(
            "ch5",
            "infinity",
            (
                "infinity",
                {"result": 2, "paging": 1, "prefetch": 1, "memory": 1, "crash": 1, "zero3": 1},
                "ZeRO-Infinity: optimizer state paged from NVMe",
                "InfinityOptimizer",
            ),
            banned=ZERO_BANNED,
            measured_memory=True,
            scan_allows=PYTHON_HEAP_COUNTED,
        ),
        *exercises_of(
            "ch5",
            "zero_cost",
            ("zero_memory_per_gpu", {"formula": 1, "paper": 1}, "memory per GPU"),
            ("zero_comm_volume", {"formula": 2}, "communication per step"),
            ("offload_memory_per_gpu", {"formula": 2}, "memory per tier with offload"),
            multi_rank=False,
        ),
    ),
)
