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

### BEGIN SOLUTION


def _positions(rank: int, world: int, length: int, layout: str) -> torch.Tensor:
    if layout == "contiguous":
        return rank * length + torch.arange(length)
    if layout == "zigzag":
        return zigzag_positions(rank, world, world * length)
    raise ValueError(f"unknown layout {layout!r}: 'contiguous' or 'zigzag'")


class _Ring:
    """This rank's place on the ring of ``group``, and the one pass of blocks to the next rank."""

    def __init__(self, group):
        self.group = group
        self.size, self.rank = dist.get_world_size(group), dist.get_rank(group)
        to_global = dist.get_global_rank if group is not None else (lambda _, r: r)
        self.next = to_global(group, (self.rank + 1) % self.size)
        self.previous = to_global(group, (self.rank - 1) % self.size)

    def pass_on(self, *tensors):
        """Send ``tensors`` to the next rank; return the same number received from the previous."""
        received = [torch.empty_like(t) for t in tensors]
        ops = [dist.P2POp(dist.isend, t, self.next, self.group) for t in tensors]
        ops += [dist.P2POp(dist.irecv, t, self.previous, self.group) for t in received]
        for work in dist.batch_isend_irecv(ops):
            work.wait()
        return received


def _scores(q, k, q_pos, k_pos, causal):
    """Scaled scores ``[heads, queries, keys]``, later keys masked to -inf when ``causal``."""
    scores = (q @ k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    if causal:
        scores = scores.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
    return scores


def _visible(q_pos, k_pos, causal) -> bool:
    """Some query sees some key of the block."""
    return not causal or bool(k_pos.min() <= q_pos.max())


class _RingAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, group, layout):
        ring = _Ring(group)
        q, k, v = (t.transpose(0, 1).contiguous() for t in (q, k, v))  # [heads, s/P, dim]
        length = q.shape[1]
        q_pos = _positions(ring.rank, ring.size, length, layout)
        out = torch.zeros_like(q)
        lse = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
        block_k, block_v = k, v
        for step in range(ring.size):
            if step + 1 < ring.size:
                incoming = ring.pass_on(block_k, block_v)
            source = (ring.rank - step) % ring.size
            k_pos = _positions(source, ring.size, length, layout)
            if _visible(q_pos, k_pos, causal):
                scores = _scores(q, block_k, q_pos, k_pos, causal)
                block_lse = torch.logsumexp(scores, dim=-1)
                # rows that see no key of this block have block_lse = -inf: their weights are 0
                weights = torch.exp(scores - block_lse.clamp(min=torch.finfo(q.dtype).min)[..., None])
                new_lse = torch.logaddexp(lse, block_lse)
                kept, added = torch.exp(lse - new_lse), torch.exp(block_lse - new_lse)
                out = out * kept[..., None] + (weights @ block_v) * added[..., None]
                lse = new_lse
            if step + 1 < ring.size:
                block_k, block_v = incoming
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.causal, ctx.group, ctx.layout = causal, group, layout
        return out.transpose(0, 1)

    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, out, lse = ctx.saved_tensors
        ring = _Ring(ctx.group)
        grad_out = grad_out.transpose(0, 1).contiguous()
        scale = q.shape[-1] ** -0.5
        length = q.shape[1]
        q_pos = _positions(ring.rank, ring.size, length, ctx.layout)
        delta = (grad_out * out).sum(dim=-1, keepdim=True)  # [heads, s/P, 1]
        grad_q = torch.zeros_like(q)
        block_k, block_v = k, v
        grad_k, grad_v = torch.zeros_like(k), torch.zeros_like(v)  # travel with their block
        for step in range(ring.size):
            source = (ring.rank - step) % ring.size
            k_pos = _positions(source, ring.size, length, ctx.layout)
            if _visible(q_pos, k_pos, ctx.causal):
                probs = torch.exp(_scores(q, block_k, q_pos, k_pos, ctx.causal) - lse[..., None])
                grad_v = grad_v + probs.transpose(-1, -2) @ grad_out
                grad_scores = probs * (grad_out @ block_v.transpose(-1, -2) - delta)
                grad_q = grad_q + (grad_scores @ block_k) * scale
                grad_k = grad_k + (grad_scores.transpose(-1, -2) @ q) * scale
            if step + 1 < ring.size:
                block_k, block_v, grad_k, grad_v = ring.pass_on(block_k, block_v, grad_k, grad_v)
        if ring.size > 1:  # the gradients of the block of rank r + 1 are here: send them home
            grad_k, grad_v = ring.pass_on(grad_k, grad_v)
        grads = (t.transpose(0, 1) for t in (grad_q, grad_k, grad_v))
        return *grads, None, None, None


### END SOLUTION


def ring_attention(q, k, v, causal: bool = False, group=None, layout: str = "contiguous"):
    ### BEGIN SOLUTION
    return _RingAttention.apply(q, k, v, causal, group, layout)
    ### END SOLUTION
