"""Chapter 6's catalog entry: its exercises module by module, their parts and points, what they may
not call, and the parts that hidden graders grade too (read through :mod:`graders.catalog`)."""

from __future__ import annotations

from graders.catalog.bans import AUTOGRAD_CALLS, PYTHON_HEAP_COUNTED, TORCH_TENSOR_PARALLEL
from graders.catalog.entries import Chapter, exercises_of

#: the conjugate mappings, each graded forward and backward
TP_MAPPINGS = {
    "copy_to_tp_region": "f: identity forward, all-reduce backward",
    "reduce_from_tp_region": "g: all-reduce forward, identity backward",
    "scatter_to_tp_region": "split the last dimension, gather back",
    "gather_from_tp_region": "gather the last dimension, split back",
    "scatter_to_sequence_region": "split the sequence, gather back",
    "gather_from_sequence_region": "all-gather the sequence, reduce-scatter back",
    "reduce_scatter_to_sequence_region": "reduce-scatter the sequence, all-gather back",
}

CHAPTER = Chapter(
    "ch6",
    "Tensor parallelism",
    "Song song tensor",
    (
        *exercises_of(
            "ch6",
            "mappings",
            *((name, {"forward": 1, "backward": 1}, title) for name, title in TP_MAPPINGS.items()),
            banned=TORCH_TENSOR_PARALLEL,
            hand_written=True,
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
            hand_written=True,
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
            scan_allows=PYTHON_HEAP_COUNTED,
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
    hidden={
        "vocab_parallel_cross_entropy": ("result",),
        "row_parallel_linear": ("backward",),
    },
)
