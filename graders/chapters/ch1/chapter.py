"""Chapter 1's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
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
    hidden={
        "read_dist_env": ("result",),
        "first_ddp": ("result",),
    },
)
