"""Chapter 11's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import (
    MEGATRON,
    PYTHON_HEAP_COUNTED,
    TORCH_DDP,
    TORCH_FSDP,
    TORCH_PIPELINING,
    TORCH_TENSOR_PARALLEL,
    TORCH_ZERO,
)
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
    "ch11",
    "Putting it together",
    "Song song 3D / 5D",
    (
        *exercises_of(
            "ch11",
            "topology",
            (
                "rank_layout",
                {"coords": 1, "groups": 2, "combined": 1},
                "the rank grid of tp, cp, ep, dp and pp, and its groups",
                "RankLayout",
            ),
            banned=MEGATRON,
            multi_rank=False,
        ),
        *exercises_of(
            "ch11",
            "process_groups",
            ("build_groups", {"result": 3}, "every group made for real, on every rank, and usable"),
            banned=MEGATRON,
        ),
        *exercises_of(
            "ch11",
            "placement",
            ("groups_crossing_nodes", {"result": 1}, "the groups that span nodes"),
            ("best_order", {"result": 1}, "an order that keeps the busiest groups inside nodes"),
            banned=MEGATRON,
            multi_rank=False,
        ),
        *exercises_of(
            "ch11",
            "planner",
            ("memory_per_gpu", {"result": 1}, "the memory a plan needs per GPU"),
            ("step_time", {"result": 1}, "the time a plan's step takes"),
            ("plan", {"result": 2, "infeasible": 1}, "the fastest plan that fits"),
            banned=MEGATRON,
            multi_rank=False,
        ),
        *exercises_of(
            "ch11",
            "framework",
            (
                "trainer_3d",
                {"result": 3, "traffic": 2, "memory": 1},
                "a GPT trained with DP × TP × PP and ZeRO-1, from your chapters 5-7",
                "Trainer3D",
            ),
            banned=TORCH_DDP | TORCH_ZERO | TORCH_FSDP | TORCH_PIPELINING | TORCH_TENSOR_PARALLEL | MEGATRON,
            measured_memory=True,
            scan_allows=PYTHON_HEAP_COUNTED,
        ),
    ),
    builds_on=("ch5", "ch6", "ch7"),
    hidden={
        "rank_layout": ("groups", "combined"),
        "groups_crossing_nodes": ("result",),
        "trainer_3d": ("result", "traffic"),
    },
)
