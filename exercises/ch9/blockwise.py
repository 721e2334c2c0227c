# Generated from solutions/ch9/blockwise.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 9: attention computed block by block, with an online softmax.

``softmax(q kᵀ / √d) v`` needs every score of a query row before it can normalise them, and the
scores of all rows are an ``s × s`` matrix: at long sequences that matrix is what does not fit.
Blockwise attention walks over the keys and values ``block_size`` at a time and keeps, per query
row, three running quantities: the largest score seen (``m``), the sum of ``exp(score - m)``
(``l``) and the weighted sum of values (``acc``). A new block with a larger maximum rescales
what came before by ``exp(m_old - m_new)``. At the end ``out = acc / l`` and the log-sum-exp of
each row's scores is ``lse = m + log(l)``. The largest intermediate is one block of scores,
``s × block_size`` per head.

``blockwise_attention(q, k, v, block_size, causal=False) -> (out, lse)``: ``q``, ``k``, ``v`` are
``[batch, heads, seq, dim]`` (one sequence length for all three); the scale is ``dim ** -0.5``;
with ``causal`` a query attends to keys at positions up to its own. The last block may be
shorter. ``out`` is ``[batch, heads, seq, dim]``, ``lse`` is ``[batch, heads, seq]``, both in the
inputs' dtype. ``F.scaled_dot_product_attention`` and anything else that makes an ``s × s``
tensor is not what this exercise is for.
"""

import torch


def blockwise_attention(q, k, v, block_size: int, causal: bool = False):
    raise NotImplementedError("[dtlab TODO] ch9/blockwise.py: implement blockwise_attention")
