"""The chapters that lay the ground before the parallel dimensions: optimizers and the memory
their state costs (ch3); :mod:`graders.chapter_table` lists them in chapter order with the others."""

from __future__ import annotations

from graders.bans import TORCH_OPTIMIZERS
from graders.exercise_types import Chapter, exercises_of

BASICS: list[Chapter] = [
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
                multi_rank=False,
            ),
            *exercises_of(
                "ch3",
                "state_memory",
                ("optimizer_state_bytes", {"measured": 2}, "bytes of optimizer state"),
                ("bytes_per_param", {"measured": 2}, "the ZeRO paper's K"),
                multi_rank=False,
            ),
        ),
    ),
]
