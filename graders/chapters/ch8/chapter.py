"""Chapter 8's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import AMP_SCALING, PYTHON_HEAP_COUNTED, TORCH_CHECKPOINT
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
    "ch8",
    "Mixed precision and memory",
    "Mixed precision, gradient accumulation, Activation Checkpointing",
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
            scan_allows=PYTHON_HEAP_COUNTED,
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
            scan_allows=PYTHON_HEAP_COUNTED,
        ),
    ),
    hidden={
        "dynamic_loss_scaler": ("scale",),
        "accumulation_step": ("result",),
    },
)
