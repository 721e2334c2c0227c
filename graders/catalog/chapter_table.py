"""The chapters and their exercises, declared once each (read through :mod:`graders.catalog`).

Each chapter lists its exercises module by module with :func:`graders.catalog.entries.exercises_of`:
the file stem, the rows ``(name, parts, title[, symbol])``, and what the module's exercises may
not call (``banned``, in the vocabulary of :mod:`graders.catalog.bans`).
"""

from __future__ import annotations

from graders.catalog.bans import (
    AUTOGRAD_CALLS,
    COLLECTIVES,
    P2P_ONLY,
    TORCH_DDP,
    TORCH_FSDP,
    TORCH_PIPELINING,
    TORCH_TENSOR_PARALLEL,
    ZERO_BANNED,
)
from graders.catalog.chapter_table_advanced import ADVANCED
from graders.catalog.chapter_table_basics import BASICS
from graders.catalog.entries import Chapter, exercises_of

#: chapter 6's conjugate mappings, each graded forward and backward
TP_MAPPINGS = {
    "copy_to_tp_region": "f: identity forward, all-reduce backward",
    "reduce_from_tp_region": "g: all-reduce forward, identity backward",
    "scatter_to_tp_region": "split the last dimension, gather back",
    "gather_from_tp_region": "gather the last dimension, split back",
    "scatter_to_sequence_region": "split the sequence, gather back",
    "gather_from_sequence_region": "all-gather the sequence, reduce-scatter back",
    "reduce_scatter_to_sequence_region": "reduce-scatter the sequence, all-gather back",
}


def _number(chapter: Chapter) -> int:
    return int(chapter.id.removeprefix("ch"))


CHAPTERS: dict[str, Chapter] = {
    c.id: c
    for c in sorted(
        [
            *BASICS,
            Chapter(
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
            ),
            Chapter(
                "ch4",
                "Data parallelism",
                "Song song dữ liệu",
                (
                    *exercises_of(
                        "ch4",
                        "param_server",
                        (
                            "param_server",
                            {"result": 2, "traffic": 2},
                            "parameter server: gather, average, update, send back",
                            "param_server_step",
                        ),
                        banned=COLLECTIVES,
                    ),
                    *exercises_of(
                        "ch4",
                        "ddp",
                        (
                            "ddp",
                            {"result": 3, "buckets": 2, "overlap": 2, "no_sync": 2, "torch": 1},
                            "DDP: bucketed all-reduce overlapped with backward",
                            "DDP",
                        ),
                        banned=TORCH_DDP,
                    ),
                    *exercises_of(
                        "ch4",
                        "fsdp",
                        (
                            "fsdp",
                            {"result": 3, "memory": 2, "traffic": 2},
                            "sharded data parallelism: flat parameter, gather, reduce-scatter",
                            "ShardedDataParallel",
                        ),
                        banned=TORCH_DDP | TORCH_FSDP,
                        measured_memory=True,
                    ),
                ),
            ),
            Chapter(
                "ch5",
                "ZeRO",
                "Họ ZeRO",
                (
                    *exercises_of(
                        "ch5",
                        "zero",
                        (
                            "zero1",
                            {"result": 2, "memory": 2, "traffic": 1, "crosscheck": 1},
                            "ZeRO-1: partitioned optimizer state",
                            "Zero1Optimizer",
                        ),
                        (
                            "zero2",
                            {"result": 2, "memory": 2, "traffic": 2},
                            "ZeRO-2: gradients reduce-scattered in backward",
                            "Zero2Optimizer",
                        ),
                        (
                            "zero3",
                            {"result": 2, "memory": 2, "traffic": 2},
                            "ZeRO-3: parameters gathered layer by layer",
                            "Zero3Module",
                        ),
                        banned=ZERO_BANNED,
                        measured_memory=True,
                    ),
                    *exercises_of(
                        "ch5",
                        "offload",
                        (
                            "offload",
                            {"result": 2, "placement": 1},
                            "ZeRO-Offload: fp32 master weights and step on the host",
                            "OffloadOptimizer",
                        ),
                        banned=ZERO_BANNED,
                        multi_rank=False,
                    ),
                    *exercises_of(
                        "ch5",
                        "infinity",
                        (
                            "infinity",
                            {"result": 2, "paging": 1, "prefetch": 1, "memory": 1, "crash": 1, "zero3": 1},
                            "ZeRO-Infinity: optimizer state paged from NVMe",
                            "InfinityOptimizer",
                        ),
                        banned=ZERO_BANNED,
                        measured_memory=True,
                    ),
                    *exercises_of(
                        "ch5",
                        "zero_cost",
                        ("zero_memory_per_gpu", {"formula": 1, "paper": 1}, "memory per GPU"),
                        ("zero_comm_volume", {"formula": 2}, "communication per step"),
                        ("offload_memory_per_gpu", {"formula": 2}, "memory per tier with offload"),
                        multi_rank=False,
                    ),
                ),
            ),
            Chapter(
                "ch6",
                "Tensor parallelism",
                "Song song tensor",
                (
                    *exercises_of(
                        "ch6",
                        "mappings",
                        *(
                            (name, {"forward": 1, "backward": 1}, title)
                            for name, title in TP_MAPPINGS.items()
                        ),
                        banned=TORCH_TENSOR_PARALLEL,
                    ),
                    *exercises_of(
                        "ch6",
                        "layers",
                        (
                            "column_parallel_linear",
                            {"result": 2, "traffic": 1, "dtensor": 1},
                            "column-parallel linear layer",
                            "ColumnParallelLinear",
                        ),
                        (
                            "vocab_parallel_embedding",
                            {"result": 1, "traffic": 1},
                            "vocabulary-parallel embedding",
                            "VocabParallelEmbedding",
                        ),
                        banned=TORCH_TENSOR_PARALLEL,
                    ),
                    *exercises_of(
                        "ch6",
                        "layers",
                        (
                            "vocab_parallel_cross_entropy",
                            {"result": 2, "traffic": 1, "memory": 1},
                            "cross-entropy without gathering the logits",
                        ),
                        banned=TORCH_TENSOR_PARALLEL,
                        measured_memory=True,
                    ),
                    *exercises_of(
                        "ch6",
                        "layers",
                        (
                            "row_parallel_linear",
                            {"result": 2, "backward": 2, "traffic": 1, "dtensor": 1},
                            "row-parallel linear layer with a hand-written backward",
                            "RowParallelLinear",
                        ),
                        banned=TORCH_TENSOR_PARALLEL | AUTOGRAD_CALLS,
                    ),
                    *exercises_of(
                        "ch6",
                        "blocks",
                        (
                            "parallel_mlp",
                            {"result": 2, "traffic": 1, "sequence_parallel": 2, "memory": 1},
                            "tensor-parallel MLP block",
                            "ParallelMLP",
                        ),
                        banned=TORCH_TENSOR_PARALLEL,
                        measured_memory=True,
                    ),
                    *exercises_of(
                        "ch6",
                        "blocks",
                        (
                            "parallel_attention",
                            {"result": 2, "traffic": 1, "sequence_parallel": 1},
                            "tensor-parallel attention block, heads split across ranks",
                            "ParallelAttention",
                        ),
                        banned=TORCH_TENSOR_PARALLEL,
                    ),
                ),
            ),
            Chapter(
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
            ),
            *ADVANCED,
        ],
        key=_number,
    )
}
