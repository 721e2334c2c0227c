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

### BEGIN SOLUTION


def _causal_mask(rows: int, start: int, width: int, device) -> torch.Tensor:
    """``True`` where key ``start + j`` comes after query ``i``."""
    query = torch.arange(rows, device=device)[:, None]
    key = start + torch.arange(width, device=device)[None, :]
    return key > query


### END SOLUTION


def blockwise_attention(q, k, v, block_size: int, causal: bool = False):
    ### BEGIN SOLUTION
    seq, scale = q.shape[-2], q.shape[-1] ** -0.5
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    l = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros_like(q)
    for start in range(0, seq, block_size):
        kb, vb = k[..., start : start + block_size, :], v[..., start : start + block_size, :]
        scores = (q @ kb.transpose(-1, -2)) * scale
        if causal:
            scores = scores.masked_fill(_causal_mask(seq, start, kb.shape[-2], q.device), float("-inf"))
        m_new = torch.maximum(m, scores.amax(dim=-1))
        p = torch.exp(scores - m_new[..., None])
        correction = torch.exp(m - m_new)
        l = l * correction + p.sum(dim=-1)
        acc = acc * correction[..., None] + p @ vb
        m = m_new
    return acc / l[..., None], m + torch.log(l)
    ### END SOLUTION
