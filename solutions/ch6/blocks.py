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
        ### BEGIN SOLUTION
        ffn, hidden = state["fc1.weight"].shape
        sp = dict(group=group, sequence_parallel=sequence_parallel)
        self.ln = _layer_norm(state, hidden)
        self.fc1 = ColumnParallelLinear(
            hidden,
            ffn,
            gather_output=False,
            master_weight=state["fc1.weight"],
            master_bias=state["fc1.bias"],
            **sp,
        )
        self.fc2 = RowParallelLinear(
            ffn,
            hidden,
            input_is_parallel=True,
            master_weight=state["fc2.weight"],
            master_bias=state["fc2.bias"],
            **sp,
        )
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        y = self.fc2(F.gelu(self.fc1(self.ln(x))))
        return x + F.dropout(y, self.dropout, self.training)
        ### END SOLUTION


### BEGIN SOLUTION
def _qkv_master(state: dict, t: int, part: str) -> torch.Tensor:
    """q, k and v stacked so that chunk r of the result is [q_r; k_r; v_r]."""
    chunks = [state[f"{name}.{part}"].chunk(t, dim=0) for name in ("q", "k", "v")]
    return torch.cat([c for r in range(t) for c in (chunks[0][r], chunks[1][r], chunks[2][r])])


### END SOLUTION


class ParallelAttention(nn.Module):
    def __init__(
        self, state: dict, heads: int, group=None, *, sequence_parallel: bool = False, dropout: float = 0.0
    ):
        super().__init__()
        self.dropout = dropout
        ### BEGIN SOLUTION
        hidden = state["q.weight"].shape[0]
        t = dist.get_world_size(group)
        self.local_heads, self.head_dim = heads // t, hidden // heads
        sp = dict(group=group, sequence_parallel=sequence_parallel)
        self.ln = _layer_norm(state, hidden)
        self.qkv = ColumnParallelLinear(
            hidden,
            3 * hidden,
            gather_output=False,
            master_weight=_qkv_master(state, t, "weight"),
            master_bias=_qkv_master(state, t, "bias"),
            **sp,
        )
        self.proj = RowParallelLinear(
            hidden,
            hidden,
            input_is_parallel=True,
            master_weight=state["proj.weight"],
            master_bias=state["proj.bias"],
            **sp,
        )
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        qkv = self.qkv(self.ln(x))  # [s, b, 3 · local heads · d]
        s, b = qkv.shape[:2]
        q, k, v = qkv.split(self.local_heads * self.head_dim, dim=-1)

        def heads(z):  # [s, b, local heads · d] -> [b, local heads, s, d]
            return z.reshape(s, b, self.local_heads, self.head_dim).permute(1, 2, 0, 3)

        q, k, v = heads(q), heads(k), heads(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        causal = torch.ones(s, s, dtype=torch.bool).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).permute(2, 0, 1, 3).reshape(s, b, self.local_heads * self.head_dim)
        return x + F.dropout(self.proj(y), self.dropout, self.training)
        ### END SOLUTION
