# Generated from solutions/ch4/fsdp.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 4: sharded data parallelism (the idea of FSDP and ZeRO-3).

DDP keeps a full replica of the parameters on every rank. Here each rank keeps only a
**shard**: the trainable parameters are flattened into one flat parameter, padded, and cut
into N equal pieces; rank r keeps piece r, and its optimizer steps only that piece. The full
parameters exist only while they are needed:

* **forward**: all-gather the shards into the full flat parameter, run the module on views
  of it, then free it;
* **backward**: the saved activations need the parameters again, so gather them again;
* **gradients**: reduce-scatter the full flat gradient, so that rank r receives only the
  average gradient of its own shard (and never holds the averaged full gradient).

**Flat layout** (graded exactly): the trainable parameters (``requires_grad``; a tied
weight once) in the order of ``module.named_parameters()``, each flattened, concatenated,
then zero-padded at the end to ``N * S`` elements with ``S = ceil(total / N)``. Group rank
r holds elements ``[r * S, (r + 1) * S)`` as ``self.flat_param``, an ``nn.Parameter`` of shape
``(S,)`` and the parameters' dtype. Frozen parameters (``requires_grad=False``) are not
sharded: they stay in the module, on every rank.

Allowed: every ``torch.distributed`` call, but the graders check the pattern: all-gathers
in forward and in backward, a reduce-scatter of the gradients, no all-reduce.
``torch.distributed.fsdp`` and DDP are banned.
"""

import torch
import torch.distributed as dist
from torch import nn


class ShardedDataParallel(nn.Module):
    """``ShardedDataParallel(module, group=None)``: every rank of ``group`` passes an identical
    ``module`` (same parameter values) and keeps only its shard of the trainable parameters.

    Training loop, on every rank of ``group``::

        sdp = ShardedDataParallel(model, group=group)
        optimizer = torch.optim.AdamW([p for p in sdp.parameters() if p.requires_grad])
        optimizer.zero_grad(set_to_none=True)
        loss_fn(sdp(inputs)).backward()     # flat_param.grad = this rank's shard of the
        optimizer.step()                    # averaged gradient

    Contract, checked by the graders:

    * After construction, the wrapper (``self``, the wrapped module and everything they keep)
      holds, in floating-point tensors, only ``flat_param`` (``S`` elements) and the frozen
      parameters: the module's trainable parameters are released. The only trainable
      parameter in ``self.parameters()`` is ``flat_param``.
    * The same holds between steps and right after ``forward`` returns: the gathered full
      parameters are freed after forward, and gathered again during backward.
    * ``forward(*args, **kwargs)`` returns what ``module(*args, **kwargs)`` returns with the
      current full parameters; tied weights stay tied.
    * After backward, ``flat_param.grad`` is shard r of the flat gradient averaged over the
      ranks of ``group`` (zeros in the padding). A trainable parameter that got no gradient
      gets zeros in the flat gradient, as in torch's FSDP: the optimizer, stepping the whole
      shard, still applies weight decay to it.
    """

    def __init__(self, module: nn.Module, group=None) -> None:
        super().__init__()
        self.module = module
        self.group = group
        raise NotImplementedError("[dtlab TODO] ch4/fsdp.py: implement ShardedDataParallel.__init__")

    def forward(self, *args, **kwargs):
        raise NotImplementedError("[dtlab TODO] ch4/fsdp.py: implement ShardedDataParallel.forward")
