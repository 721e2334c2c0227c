"""The chapters that lay the ground before the parallel dimensions: the overview (ch1: the memory
ledger, torchrun and a first DDP script) and optimizers with the memory their state costs (ch3);
:mod:`graders.catalog.chapter_table` lists them in chapter order with the others."""

from __future__ import annotations

from graders.catalog.bans import TORCH_OPTIMIZERS
from graders.catalog.entries import Chapter, exercises_of

BASICS: list[Chapter] = [
    Chapter(
        "ch1",
        "Overview",
        "Tổng quan",
        (
            *exercises_of(
                "ch1",
                "model_memory",
                ("count_parameters", {"result": 2}, "the parameters of the kit's GPT"),
                (
                    "training_memory",
                    {"measured": 2, "paper": 1},
                    "the memory ledger of a training step (the ZeRO paper's 16 bytes)",
                ),
                (
                    "activation_memory",
                    {"none": 1, "selective": 1, "full": 1},
                    "activation bytes saved for backward, by recompute mode",
                ),
                multi_rank=False,
            ),
            *exercises_of(
                "ch1",
                "launch",
                ("read_dist_env", {"result": 1, "errors": 2}, "torchrun's environment variables"),
                ("pick_backend", {"result": 1}, "NCCL or gloo"),
                ("device_for", {"result": 1}, "the device of a local rank"),
                multi_rank=False,
            ),
            *exercises_of(
                "ch1",
                "first_ddp",
                (
                    "first_ddp",
                    {"result": 2, "shards": 2, "rank0": 1},
                    "a first DDP training script, run by torchrun",
                    "main",
                ),
                multi_rank=False,  # a whole program: it reads its data and writes its checkpoint
                launcher="torchrun",
            ),
        ),
    ),
    Chapter(
        "ch3",
        "Optimizers",
        "Optimizer",
        (
            *exercises_of(
                "ch3",
                "optimizers",
                ("sgd", {"result": 2, "state": 1}, "SGD with momentum, nesterov and weight decay", "SGD"),
                ("adam", {"result": 2, "state": 1}, "Adam (L2 weight decay, amsgrad)", "Adam"),
                ("adamw", {"result": 2, "state": 1}, "AdamW: decoupled weight decay", "AdamW"),
                ("adagrad", {"result": 2, "state": 1}, "Adagrad", "Adagrad"),
                ("lion", {"result": 2, "state": 1}, "Lion: the sign of an interpolated moment", "Lion"),
                banned=TORCH_OPTIMIZERS,
                measured_memory=True,
                multi_rank=False,
                scan_allows=frozenset({"item"}),
            ),
            *exercises_of(
                "ch3",
                "state_memory",
                ("optimizer_state_bytes", {"measured": 2}, "bytes of optimizer state"),
                ("bytes_per_param", {"measured": 2}, "the ZeRO paper's K"),
                banned=TORCH_OPTIMIZERS,  # a formula, not a real optimizer measured
                multi_rank=False,
            ),
        ),
    ),
]
