"""Chapter 9: DeepSpeed-Ulysses, sequence parallelism by two all-to-alls.

Each of the ``P`` ranks of ``group`` holds one contiguous chunk of the sequence (rank ``r``
holds positions ``r·s/P … (r+1)·s/P``) for every head: ``q``, ``k``, ``v`` are
``[s/P, heads, dim]``. Attention needs the whole sequence, but each head is independent. So:

1. **one all-to-all** of ``q``, ``k`` and ``v`` stacked together turns "my positions, all heads"
   into "all positions, my heads": rank ``r`` gets heads ``r·h/P … (r+1)·h/P`` of every position;
2. attention runs locally on those heads (``F.scaled_dot_product_attention`` is allowed here),
   causal or not;
3. **one all-to-all** of the output turns it back into "my positions, all heads".

Backward is the same two all-to-alls in reverse (the gradient of an all-to-all is the reverse
all-to-all), written as a ``torch.autograd.Function``: ``torch.distributed.nn`` is not allowed.
``heads`` must divide by ``P``: otherwise ``ValueError`` naming both.
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F

### BEGIN SOLUTION


class _AllToAll(torch.autograd.Function):
    """Chunk ``i`` of dim 0 goes to group rank ``i``; chunk ``i`` of the result came from it."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        out = x.new_empty(x.shape)  # contiguous, whatever x's strides
        dist.all_to_all_single(out, x.contiguous(), group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        out = grad.new_empty(grad.shape)
        dist.all_to_all_single(out, grad.contiguous(), group=ctx.group)
        return out, None


### END SOLUTION


def ulysses_attention(q, k, v, causal: bool = False, group=None):
    ### BEGIN SOLUTION
    p = dist.get_world_size(group)
    local, heads, dim = q.shape
    if heads % p:
        raise ValueError(f"{heads} heads cannot be split over {p} ranks")
    per = heads // p
    # [3, s/P, P, h/P, d] -> [P, 3, s/P, h/P, d]: chunk j (heads of rank j) goes to rank j
    stacked = torch.stack([q, k, v]).view(3, local, p, per, dim).permute(2, 0, 1, 3, 4)
    received = _AllToAll.apply(stacked, group)  # [P sources, 3, s/P, h/P, d]
    qkv = received.permute(1, 3, 0, 2, 4).reshape(3, per, p * local, dim)  # [3, h/P, s, d]
    out = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=causal)  # [h/P, s, d]
    # [h/P, s, d] -> [P positions' owners, s/P, h/P, d]
    back = out.reshape(per, p, local, dim).permute(1, 2, 0, 3)
    returned = _AllToAll.apply(back, group)  # [P head groups, s/P, h/P, d]
    return returned.permute(1, 0, 2, 3).reshape(local, heads, dim)
    ### END SOLUTION
