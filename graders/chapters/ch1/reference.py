"""Chapter 1's references, computed in the driver.

* The parameter count: ``sum(p.numel())`` of the kit's GPT built from the case.
* The activation bytes: what autograd saves (a saved-tensors hook, per storage, parameters
  aside) in one forward of the kit's GPT block, in the case's recompute mode.
* The first DDP script: one process trained on the *global* batches the two processes fed
  (each step, the union of their batches), with the script's model, loss (mean squared error) and
  SGD; its parameters after the last step.

(The training ledger is measured in the worker, by a real step: :mod:`graders.training.step_ledger`.)
This module is the driver's alone: the workers, where graded code runs, never import it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from graders.chapters.ch1.first_ddp.cases import PROCESSES, build_model, sampler_order
from graders.training.gpt import build_gpt_block
from graders.training.optimizers import FunctionalOptimizer, OptimizerSpec
from graders.training.saved_bytes import SavedBytes


def parameter_count(case) -> int:
    return sum(p.numel() for p in case.gpt().parameters())


def activation_bytes(case) -> int:
    block = build_gpt_block(
        case.hidden,
        case.heads,
        case.ffn_hidden,
        dtype=getattr(torch, case.dtype),
        dropout=case.dropout,
        recompute=case.recompute,
    )
    x = torch.randn(case.seq_len, case.micro_batch, case.hidden, dtype=getattr(torch, case.dtype))
    saved = SavedBytes(ignore=block.parameters())
    with saved:
        block(x.requires_grad_())
    return saved.nbytes


def trained(case, steps: list[list[list[int]]]) -> tuple[dict[str, torch.Tensor], list[tuple[float, float]]]:
    """The script's model after one process's steps on the global batches of ``steps`` (per step,
    each process's example indices), and per step the loss of the global batch and of rank 0's."""
    model = build_model(case.features, case.hidden)
    model.load_state_dict(case.init)
    spec = OptimizerSpec("sgd", lr=case.lr, weight_decay=0.0, momentum=case.momentum)
    optimizer = FunctionalOptimizer(spec, model.parameters())
    losses = []
    for per_rank in steps:
        optimizer.zero_grad()
        index = torch.tensor([i for batch in per_rank for i in batch])
        loss = F.mse_loss(model(case.x[index]), case.y[index])
        with torch.no_grad():
            first = torch.tensor(per_rank[0])
            losses.append((float(loss), float(F.mse_loss(model(case.x[first]), case.y[first]))))
        loss.backward()
        optimizer.step()
    return {name: t.detach().clone() for name, t in model.state_dict().items()}, losses


def global_batches(case) -> list[list[list[int]]]:
    """The examples of every step, as a script that follows the docstring feeds them: each epoch
    DistributedSampler's order, process r taking every other example from r, batches of
    ``batch_size`` per process; per step, each process's batch."""
    steps = []
    for epoch in range(case.epochs):
        order = sampler_order(case.examples, case.seed, epoch)
        shards = [order[r::PROCESSES] for r in range(PROCESSES)]
        for start in range(0, len(shards[0]), case.batch_size):
            steps.append([shard[start : start + case.batch_size] for shard in shards])
    return steps
