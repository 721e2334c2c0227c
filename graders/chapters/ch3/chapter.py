"""Chapter 3's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import PYTHON_HEAP_COUNTED, TORCH_OPTIMIZERS
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
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
            scan_allows=PYTHON_HEAP_COUNTED,
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
    hidden={
        "sgd": ("result", "state"),
        "adam": ("result", "state"),
        "adamw": ("result", "state"),
        "adagrad": ("result", "state"),
        "lion": ("result", "state"),
    },
)
