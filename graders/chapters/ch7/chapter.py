"""Chapter 7's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import COLLECTIVES, TORCH_PIPELINING
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
    "ch7",
    "Pipeline parallelism",
    "Song song pipeline",
    (
        *exercises_of(
            "ch7",
            "schedules",
            ("gpipe_schedule", {"valid": 1, "order": 1}, "GPipe schedule"),
            ("one_f_one_b_schedule", {"valid": 1, "warmup": 2, "makespan": 1}, "1F1B schedule"),
            (
                "interleaved_1f1b_schedule",
                {"valid": 1, "makespan": 1, "torch": 2},
                "interleaved 1F1B schedule",
            ),
            banned=TORCH_PIPELINING,
            multi_rank=False,
        ),
        *exercises_of(
            "ch7",
            "bubble",
            ("bubble_fraction", {"formula": 1, "measured": 1}, "pipeline bubble"),
            multi_rank=False,
        ),
        *exercises_of(
            "ch7",
            "executor",
            (
                "run_pipeline",
                {"gradients": 3, "memory": 2, "traffic": 1, "own_schedules": 1},
                "pipeline executor",
            ),
            banned=COLLECTIVES | TORCH_PIPELINING,
        ),
    ),
)
