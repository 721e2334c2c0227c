"""Chapter 8's single-device references, computed in the driver.

* Gradient accumulation: each rank's gradient of its step's token-mean loss, averaged over the
  ranks (what DDP's all-reduce gives), then the same SGD step as the task's.
* Checkpointing: the block run plainly from the same generator state: its values, the bytes
  autograd saved, the FLOPs of forward and backward, and the numbers drawn after backward. The
  driver's own generator is left as it was.
"""

from __future__ import annotations

import torch

from graders.chapters.ch8.measure import MatmulFlops, SavedBytes, kept_after_forward
from graders.chapters.ch8.tasks import (
    RNG_BETWEEN,
    RNG_PROBE,
    accumulation_model,
    accumulation_optimizer,
    checkpoint_block,
    token_losses,
)
from graders.training.live_memory import LiveLedger


def accumulation(case) -> dict:
    """Parameters after every step, and each rank's loss per step."""
    model = accumulation_model(case)
    optimizer = accumulation_optimizer(model.parameters())
    params, losses = [], [[] for _ in range(case.n)]
    for s in range(len(case.sizes)):
        grads = [torch.zeros_like(p) for p in model.parameters()]
        for i in range(case.n):
            step = case.batches[i][s]
            rows = torch.cat([x for x, _ in step]), torch.cat([y for _, y in step])
            loss = token_losses(model(rows[0]), rows[1]).mean()
            losses[i].append(loss.item())
            for total, grad in zip(grads, torch.autograd.grad(loss, list(model.parameters())), strict=True):
                total += grad / case.n
        for param, grad in zip(model.parameters(), grads, strict=True):
            param.grad = grad
        optimizer.step()
        optimizer.zero_grad()
        params.append([p.detach().clone() for p in model.parameters()])
    return {"params": params, "losses": losses}


def checkpointed(case) -> dict:
    with torch.random.fork_rng(devices=[]):
        block = checkpoint_block(case)
        x = case.x.clone().requires_grad_()
        torch.manual_seed(case.seed)
        saved, forward, backward, ledger = SavedBytes(), MatmulFlops(), MatmulFlops(), LiveLedger()
        with ledger:
            ledger.enter("forward")
            with saved, forward:
                out = block(x)
            ledger.enter("between")
            kept = kept_after_forward(ledger, out)
        torch.rand(RNG_BETWEEN)
        with backward:
            out.backward(case.grad.clone())
        probe = torch.rand(RNG_PROBE, dtype=torch.float64)
    return {
        "output": out.detach(),
        "input_grad": x.grad,
        "param_grads": {name: p.grad for name, p in block.named_parameters()},
        "saved_bytes": saved.nbytes,
        "kept_bytes": kept,
        "input_bytes": case.x.untyped_storage().nbytes(),
        "flops": {"forward": forward.total, "backward": backward.total},
        "rng_probe": probe,
    }
