"""Chapter 1's references, computed in the driver.

* The parameter count: ``sum(p.numel())`` of the kit's GPT built from the case.
* The activation bytes: what autograd saves (a saved-tensors hook, per storage, parameters
  aside) in one forward of the kit's GPT block, in the case's recompute mode.
* The first DDP script: one process trained on the *global* batches the two processes fed
  (each step, the union of their batches), with the script's model, loss (mean squared error) and
  SGD; its parameters after the last step.

(The training ledger is measured in the worker, by a real step: :mod:`graders.training.step_ledger`.)
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from graders.models import build_gpt, build_gpt_block
from graders.training.optimizers import FunctionalOptimizer, OptimizerSpec
from graders.training.saved_bytes import SavedBytes


def build_model(features: int, hidden: int) -> nn.Module:
    """The first DDP script's model (its ``build_model``)."""
    return nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, 1))


def gpt(case, **kwargs) -> nn.Module:
    return build_gpt(
        case.vocab_size,
        case.max_seq_len,
        case.hidden,
        case.heads,
        case.layers,
        case.ffn_hidden,
        tied=case.tied,
        **kwargs,
    )


def parameter_count(case) -> int:
    return sum(p.numel() for p in gpt(case).parameters())


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


def trained(case, global_batches: list[list[int]]) -> dict[str, torch.Tensor]:
    """The script's model after one process's steps on ``global_batches`` (example indices)."""
    model = build_model(case.features, case.hidden)
    model.load_state_dict(case.init)
    spec = OptimizerSpec("sgd", lr=case.lr, weight_decay=0.0, momentum=case.momentum)
    optimizer = FunctionalOptimizer(spec, model.parameters())
    for batch in global_batches:
        optimizer.zero_grad()
        index = torch.tensor(batch)
        F.mse_loss(model(case.x[index]), case.y[index]).backward()
        optimizer.step()
    return {name: t.detach().clone() for name, t in model.state_dict().items()}
