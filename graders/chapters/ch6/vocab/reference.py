"""Chapter 6's vocabulary-parallel references, computed in the driver from the case's whole tensors."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from graders.chapters.ch6.vocab.cases import VocabCase


def embedding(case: VocabCase) -> dict[str, torch.Tensor]:
    table = case.table.clone().requires_grad_()
    y = F.embedding(case.ids, table)
    y.backward(case.grad)
    return {"output": y.detach(), "weight_grad": table.grad}


def cross_entropy(case: VocabCase) -> dict[str, torch.Tensor]:
    logits = case.table.clone().requires_grad_()
    loss = F.cross_entropy(logits.reshape(-1, case.vocab), case.ids.reshape(-1), reduction="none")
    loss = loss.reshape(case.ids_shape)
    loss.backward(case.grad)
    return {"output": loss.detach(), "logits_grad": logits.grad}
