# Generated from solutions/ch9/ulysses.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
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


def ulysses_attention(q, k, v, causal: bool = False, group=None):
    raise NotImplementedError("[dtlab TODO] ch9/ulysses.py: implement ulysses_attention")
