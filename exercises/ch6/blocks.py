# Generated from solutions/ch6/blocks.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 6: a transformer block's two halves, tensor parallel.

Both blocks are pre-LayerNorm residual sublayers on activations shaped ``[s, b, h]``
(sequence, batch, hidden), exactly like the single-device blocks they are built from:

* ``ParallelMLP``: ``x + dropout(fc2(gelu(fc1(ln(x)))))``; ``fc1`` is column parallel,
  ``fc2`` row parallel, and nothing is communicated between them.
* ``ParallelAttention``: ``x + dropout(proj(attention(q(ln(x)), k(ln(x)), v(ln(x)))))``,
  causal, with ``heads`` heads of ``h / heads`` features; rank ``r`` computes heads
  ``r·heads/t … (r+1)·heads/t``. ``q``, ``k`` and ``v`` are one column-parallel layer, so
  the block enters the TP region once; ``proj`` is row parallel.

``state`` is the single-device block's ``state_dict()``: ``ln.weight``, ``ln.bias`` and, for
the MLP, ``fc1.weight``/``fc1.bias``/``fc2.weight``/``fc2.bias``; for attention ``q.weight``,
``q.bias``, ``k.*``, ``v.*``, ``proj.*``. Every rank gets every key at its full shape, but in
the split layers only this rank's shard is real (the other ranks' rows or columns are NaN); the
LayerNorm and ``fc2``/``proj``'s bias are whole. Each block keeps the shards of its linear layers
and a copy of the LayerNorm.

Without sequence parallelism, ``x`` and the output are the whole ``[s, b, h]`` on every rank,
and a block communicates one all-reduce forward and one backward. With
``sequence_parallel=True``, ``x`` and the output are this rank's chunk ``[s/t, b, h]`` of the
sequence: LayerNorm and dropout run on the chunk, the block all-gathers the sequence before
its first linear layer and reduce-scatters after its last. The gradients of the LayerNorm and
of the row layer's bias are then this rank's part: summed over the group they are the full
gradients (Megatron all-reduces them once per step, outside the block).
"""

import math

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from .layers import ColumnParallelLinear, RowParallelLinear


def _layer_norm(state: dict, dim: int) -> nn.LayerNorm:
    ln = nn.LayerNorm(dim, dtype=state["ln.weight"].dtype)
    with torch.no_grad():
        ln.weight.copy_(state["ln.weight"])
        ln.bias.copy_(state["ln.bias"])
    return ln


class ParallelMLP(nn.Module):
    def __init__(self, state: dict, group=None, *, sequence_parallel: bool = False, dropout: float = 0.0):
        super().__init__()
        self.dropout = dropout
        raise NotImplementedError("[dtlab TODO] ch6/blocks.py: implement ParallelMLP.__init__")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("[dtlab TODO] ch6/blocks.py: implement ParallelMLP.forward")


class ParallelAttention(nn.Module):
    def __init__(
        self, state: dict, heads: int, group=None, *, sequence_parallel: bool = False, dropout: float = 0.0
    ):
        super().__init__()
        self.dropout = dropout
        raise NotImplementedError("[dtlab TODO] ch6/blocks.py: implement ParallelAttention.__init__")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("[dtlab TODO] ch6/blocks.py: implement ParallelAttention.forward")
