"""Chapter 2's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import P2P_ONLY
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
    "ch2",
    "Collective communication",
    "Giao tiếp tập thể",
    (
        *exercises_of(
            "ch2",
            "collectives",
            ("ring_shift", {"result": 1}, "send right, receive left"),
            ("broadcast", {"result": 1, "tree": 1}, "binomial-tree broadcast"),
            ("reduce", {"result": 1, "tree": 1}, "binomial-tree reduce"),
            ("ring_all_gather", {"result": 1, "ring": 1}, "ring all-gather"),
            ("ring_reduce_scatter", {"result": 2, "ring": 1}, "ring reduce-scatter"),
            ("ring_all_reduce", {"result": 2, "ring": 1}, "ring all-reduce"),
            ("all_to_all", {"result": 2, "traffic": 1}, "all-to-all"),
            banned=P2P_ONLY,
        ),
        *exercises_of(
            "ch2",
            "cost_model",
            ("bytes_sent_per_rank", {"formula": 1, "measured": 1}, "bytes each rank sends"),
            ("alpha_beta_time", {"formula": 1}, "alpha-beta time model"),
            ("bus_bandwidth", {"formula": 1}, "bus bandwidth (nccl-tests)"),
            multi_rank=False,
        ),
    ),
    hidden={
        "ring_all_reduce": ("result", "ring"),
    },
)
