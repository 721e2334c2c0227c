"""Chapter 10's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import TORCH_DDP, TORCH_TENSOR_PARALLEL
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
    "ch10",
    "Mixture of Experts",
    "Mixture of Experts (MoE)",
    (
        *exercises_of(
            "ch10",
            "router",
            ("capacity", {"formula": 1}, "slots per expert"),
            (
                "top_k_router",
                {"routing": 2, "capacity": 2, "losses": 1, "gradients": 1},
                "top-k router with capacity, aux loss and z-loss",
                "TopKRouter",
            ),
            multi_rank=False,
        ),
        *exercises_of(
            "ch10",
            "moe_layer",
            ("moe_layer", {"result": 2, "backward": 1}, "MoE layer on one device", "MoELayer"),
            multi_rank=False,
        ),
        *exercises_of(
            "ch10",
            "expert_parallel",
            (
                "expert_parallel_moe",
                {"result": 3, "traffic": 2, "local_experts": 1},
                "expert parallelism over all-to-all",
                "ExpertParallelMoE",
            ),
            banned=TORCH_TENSOR_PARALLEL,
        ),
        *exercises_of(
            "ch10",
            "groups",
            ("expert_data_parallel_ranks", {"result": 1}, "expert-data-parallel groups"),
            multi_rank=False,
        ),
        *exercises_of(
            "ch10",
            "groups",
            (
                "all_reduce_moe_gradients",
                {"result": 1, "traffic": 1},
                "expert and dense gradients, each in its own group",
            ),
            banned=TORCH_DDP | TORCH_TENSOR_PARALLEL,
        ),
    ),
    hidden={
        "top_k_router": ("gradients",),
        "expert_parallel_moe": ("result",),
    },
)
