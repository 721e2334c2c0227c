"""The chapters on the techniques built on the parallel dimensions: mixed precision and memory
(ch8), long sequences (ch9) and Mixture of Experts (ch10), and the chapter that puts every
dimension together (ch11); :mod:`graders.catalog.chapter_table` lists them after the others."""

from __future__ import annotations

from graders.catalog.bans import (
    AMP_SCALING,
    MEGATRON,
    SDPA,
    TORCH_CHECKPOINT,
    TORCH_DDP,
    TORCH_FSDP,
    TORCH_PIPELINING,
    TORCH_TENSOR_PARALLEL,
    TORCH_ZERO,
)
from graders.catalog.entries import Chapter, exercises_of

ADVANCED: list[Chapter] = [
    Chapter(
        "ch8",
        "Mixed precision and memory",
        "Mixed precision, tích lũy gradient, activation checkpointing",
        (
            *exercises_of(
                "ch8",
                "loss_scaler",
                (
                    "dynamic_loss_scaler",
                    {"scale": 1, "skip": 1, "unscale": 1},
                    "dynamic loss scaling, against torch's GradScaler",
                    "DynamicLossScaler",
                ),
                banned=AMP_SCALING,
                multi_rank=False,
            ),
            *exercises_of(
                "ch8",
                "fp8",
                ("quantize_fp8", {"result": 1, "rules": 1}, "FP8 with a per-tensor amax scale"),
                (
                    "delayed_scaling",
                    {"result": 2},
                    "delayed scaling from an amax history",
                    "DelayedScaling",
                ),
                ("fp8_linear", {"result": 2}, "a simulated FP8 linear layer"),
                multi_rank=False,
            ),
            *exercises_of(
                "ch8",
                "mixed_precision",
                (
                    "mixed_precision_trainer",
                    {"result": 2, "memory": 1},
                    "fp32 masters",
                    "MixedPrecisionTrainer",
                ),
                measured_memory=True,
                multi_rank=False,
            ),
            *exercises_of(
                "ch8",
                "accumulation",
                ("accumulation_step", {"result": 2, "traffic": 1}, "gradient accumulation under DDP"),
            ),
            *exercises_of(
                "ch8",
                "checkpointing",
                (
                    "checkpoint",
                    {"result": 2, "memory": 1, "recompute": 1, "rng": 1},
                    "activation checkpointing with the RNG state restored",
                ),
                banned=TORCH_CHECKPOINT,
                measured_memory=True,
                multi_rank=False,
            ),
        ),
    ),
    Chapter(
        "ch9",
        "Long sequences",
        "Song song chuỗi dài",
        (
            *exercises_of(
                "ch9",
                "blockwise",
                ("blockwise_attention", {"result": 2, "memory": 1}, "blockwise attention, online softmax"),
                banned=SDPA,
                measured_memory=True,
                multi_rank=False,
            ),
            *exercises_of(
                "ch9",
                "ulysses",
                ("ulysses_attention", {"result": 2, "traffic": 1, "heads": 1}, "Ulysses: two all-to-alls"),
                banned=TORCH_TENSOR_PARALLEL,
            ),
            *exercises_of(
                "ch9",
                "ring_attention",
                (
                    "ring_attention",
                    {"result": 2, "backward": 2, "traffic": 1},
                    "Ring Attention: key/value blocks around the ring",
                ),
                banned=TORCH_TENSOR_PARALLEL,
            ),
            *exercises_of(
                "ch9",
                "context_parallel",
                ("zigzag_shard", {"round_trip": 1, "balance": 1}, "the zigzag layout of context parallelism"),
                multi_rank=False,
            ),
            *exercises_of(
                "ch9",
                "ring_attention",
                (
                    "zigzag_ring_attention",
                    {"result": 2},
                    "Ring Attention over the zigzag layout",
                    "ring_attention",
                ),
                banned=TORCH_TENSOR_PARALLEL,
            ),
            *exercises_of(
                "ch9",
                "lc_cost",
                ("score_bytes", {"formula": 1}, "the largest score tensor per method"),
                ("ring_comm_bytes", {"formula": 1, "measured": 1}, "Ring Attention's bytes per layer"),
                ("ulysses_comm_bytes", {"formula": 1, "measured": 1}, "Ulysses' bytes per layer"),
                multi_rank=False,
            ),
        ),
    ),
    Chapter(
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
    ),
    Chapter(
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
                banned=TORCH_DDP
                | TORCH_ZERO
                | TORCH_FSDP
                | TORCH_PIPELINING
                | TORCH_TENSOR_PARALLEL
                | MEGATRON,
                measured_memory=True,
                scan_allows=frozenset({"item"}),  # the loss is returned as a float
            ),
        ),
        builds_on=("ch5", "ch6", "ch7"),
    ),
]
