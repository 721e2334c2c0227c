# Generated from solutions/ch9/ring_attention.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 9: Ring Attention (Liu et al., 2023), attention over a sequence split around a ring.

Each of the ``P`` ranks of ``group`` holds one chunk of the sequence: ``q``, ``k``, ``v`` are
``[s/P, heads, dim]``. The queries stay where they are; the key/value blocks travel. At step
``t`` rank ``r`` holds the block of rank ``r - t`` (mod ``P``): it attends to it, merges the
partial result into its running output by the log-sum-exp (as the online softmax of
``blockwise.py`` merges blocks), and passes the block on to rank ``r + 1`` while receiving the
next one from rank ``r - 1``. After ``P - 1`` passes every query has seen every key, and no rank
ever held more than two blocks.

Backward runs the same ring. Each rank keeps its queries and accumulates ``dq``; the blocks'
gradients ``dk`` and ``dv`` travel with their blocks, each rank adding its contribution as they
pass, and one last pass brings them home. Point-to-point messages are not differentiable, so
this is a ``torch.autograd.Function``.

``layout`` says which positions of the whole sequence each rank holds: ``"contiguous"`` (rank
``r`` holds positions ``r·s/P … (r+1)·s/P``) or ``"zigzag"`` (``context_parallel.py``). It only
matters for the causal mask, which compares positions in the whole sequence: a block whose keys
all come after every local query is skipped (it still travels on).
"""

import torch
import torch.distributed as dist

from .context_parallel import zigzag_positions


def ring_attention(q, k, v, causal: bool = False, group=None, layout: str = "contiguous"):
    raise NotImplementedError("[dtlab TODO] ch9/ring_attention.py: implement ring_attention")
