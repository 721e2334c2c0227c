"""Chapter 9's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import SDPA, TORCH_TENSOR_PARALLEL
from graders.catalog.entries import Chapter, exercises_of

CHAPTER = Chapter(
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
                {"result": 2, "backward": 2, "traffic": 1, "memory": 1},
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
    hidden={
        "ulysses_attention": ("result",),
        "ring_attention": ("backward",),
        "zigzag_ring_attention": ("result",),
    },
)
