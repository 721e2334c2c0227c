"""Chapter 11, the capstone: a small GPT trained with DP × TP × PP, ZeRO-1 on the DP axis,
built from your own parts of chapters 5, 6 and 7 and of this chapter.

``Trainer3D(state, heads, *, tp, pp, dp, microbatches, optimizer_cls, **hparams)`` is made on
**every** rank of a world of ``tp · pp · dp`` processes, after ``init_process_group``.

* ``state``: the single-device GPT's ``state_dict()`` (read it, never change it):
  ``token_embedding.weight`` ``[vocab, h]``, ``position_embedding.weight`` ``[max_seq, h]``,
  ``blocks.{i}.attention.*`` and ``blocks.{i}.mlp.*`` (the names chapter 6's blocks are built
  from), the final ``ln.*`` and ``head.weight`` ``[vocab, h]`` (not tied). Every rank gets every
  key, but only its own part is real: the entries of other stages, and the rows or columns of
  its stage's split layers that belong to its tp neighbours, are NaN. A rank that computes what
  it should receive gets a NaN loss.
* ``heads``: the attention heads of every block (``tp`` divides it); the number of blocks is read
  from ``state`` (``pp`` divides it).

The rank grid is your ``RankLayout(tp=tp, dp=dp, pp=pp)`` (tp innermost, then dp, then pp), its
groups made by your ``build_groups``. Pipeline stage ``s`` holds blocks ``s·L/pp … (s+1)·L/pp``,
tensor parallel over its tp group with your ``ParallelAttention`` and ``ParallelMLP``; stage 0
also holds both embeddings and the last stage the final LayerNorm and the head, both replicated
on the ranks of the stage's tp group. ``Zero1Optimizer`` (``optimizer_cls(shard, **hparams)``
inside) steps the parameters this rank holds over its dp group.

``train_step(tokens, targets)`` runs one step on the **global** batch (``[s, B]`` token ids and
next-token targets; the ids are real only where a rank reads them, on the first stage for tokens
and the last for targets, in its own columns, and ``-1`` elsewhere): dp rank ``d`` takes columns
``d·B/dp … (d+1)·B/dp``,
cuts them into ``microbatches`` equal microbatches, runs them through your ``run_pipeline`` with
the 1F1B schedule over the pp group, and steps. The loss is the mean cross-entropy over every
token of the global batch. It returns that loss as a float (computed before the update) on the
ranks of the last stage, and ``None`` on the others.

Communication, per step: activations and their gradients between neighbouring stages only
(``microbatches`` of each per boundary); one all-reduce of a microbatch's activations per block
and direction for each half (attention, MLP) in the tp group; ZeRO-1's reduce-scatter and
all-gather of the stage's parameters in the dp group; and one scalar all-reduce in the dp group
for the loss. Each rank keeps only its own stage's shard of the model, its gradients and a
1/dp share of the optimizer state: the optimizer it builds from ``optimizer_cls`` (which the
graders count) holds and steps that share only. Torch's DDP, ZeroRedundancyOptimizer, FSDP, pipelining and
tensor parallelism are banned.
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from ..ch5.zero import Zero1Optimizer
from ..ch6.blocks import ParallelAttention, ParallelMLP
from ..ch7.executor import run_pipeline
from ..ch7.schedules import one_f_one_b_schedule
from .process_groups import build_groups
from .topology import RankLayout


### BEGIN SOLUTION
def _part(state: dict, prefix: str) -> dict:
    """The entries of ``state`` under ``prefix``, with the prefix taken off."""
    return {name[len(prefix) :]: value for name, value in state.items() if name.startswith(prefix)}


def _copied(weight: torch.Tensor) -> nn.Parameter:
    return nn.Parameter(weight.detach().clone())


class _Blocks(nn.Module):
    """This stage's transformer blocks, tensor parallel over ``group``: ``[s, b, h]`` in and out."""

    def __init__(self, state: dict, heads: int, layers: range, group) -> None:
        super().__init__()
        self.blocks = nn.ModuleList()
        for i in layers:
            attention = ParallelAttention(_part(state, f"blocks.{i}.attention."), heads, group)
            self.blocks.append(attention)
            self.blocks.append(ParallelMLP(_part(state, f"blocks.{i}.mlp."), group))

    def forward(self, activations: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            activations = block(activations)
        return activations


class _Embedding(nn.Module):
    """Token plus position embeddings, on stage 0: ``[s, b]`` ids -> ``[s, b, h]``."""

    def __init__(self, state: dict) -> None:
        super().__init__()
        self.tokens = _copied(state["token_embedding.weight"])
        self.positions = _copied(state["position_embedding.weight"])

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        positions = self.positions[: token_ids.shape[0]]
        return F.embedding(token_ids, self.tokens) + positions[:, None, :]


class _Head(nn.Module):
    """The final LayerNorm and the LM head, on the last stage: the mean loss of a microbatch."""

    def __init__(self, state: dict) -> None:
        super().__init__()
        hidden = state["ln.weight"].shape[0]
        self.ln = nn.LayerNorm(hidden, dtype=state["ln.weight"].dtype)
        with torch.no_grad():
            self.ln.weight.copy_(state["ln.weight"])
            self.ln.bias.copy_(state["ln.bias"])
        self.weight = _copied(state["head.weight"])

    def forward(self, last_hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        logits = self.ln(last_hidden) @ self.weight.T
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


### END SOLUTION


class Trainer3D:
    def __init__(
        self,
        state: dict,
        heads: int,
        *,
        tp: int,
        pp: int,
        dp: int,
        microbatches: int,
        optimizer_cls,
        **hparams,
    ):
        ### BEGIN SOLUTION
        self.layout = RankLayout(tp=tp, dp=dp, pp=pp)
        self.groups = build_groups(self.layout, ("tp", "dp", "pp"))
        coords = self.layout.coords(dist.get_rank())
        self.stage, self.dp_rank, self.dp, self.pp = coords["pp"], coords["dp"], dp, pp
        self.microbatches = microbatches
        layers = 1 + max(int(name.split(".")[1]) for name in state if name.startswith("blocks."))
        per_stage = layers // pp
        mine = range(self.stage * per_stage, (self.stage + 1) * per_stage)
        self.blocks = _Blocks(state, heads, mine, self.groups["tp"])
        self.embedding = _Embedding(state) if self.stage == 0 else None
        self.head = _Head(state) if self.stage == pp - 1 else None
        modules = [m for m in (self.embedding, self.blocks, self.head) if m is not None]
        params = [p for m in modules for p in m.parameters()]
        self.optimizer = Zero1Optimizer(params, optimizer_cls, group=self.groups["dp"], **hparams)
        self.schedule = one_f_one_b_schedule(pp, microbatches)
        ### END SOLUTION

    def train_step(self, tokens: torch.Tensor, targets: torch.Tensor) -> float | None:
        ### BEGIN SOLUTION
        width = tokens.shape[1] // self.dp
        columns = slice(self.dp_rank * width, (self.dp_rank + 1) * width)
        pieces = zip(
            tokens[:, columns].chunk(self.microbatches, dim=1),
            targets[:, columns].chunk(self.microbatches, dim=1),
        )
        hidden = self.blocks.blocks[0].ln.weight.shape[0]
        microbatches = []
        for ids, target in pieces:
            if self.embedding is not None:
                x = self.embedding(ids)  # its graph reaches the embeddings in backward
            else:  # only the shape matters: the activations arrive from the previous stage
                x = torch.empty(*ids.shape, hidden, dtype=self.blocks.blocks[0].ln.weight.dtype)
            microbatches.append((x, target))
        self.optimizer.zero_grad()
        loss = run_pipeline(self.blocks, self.schedule, microbatches, self.head, group=self.groups["pp"])
        self.optimizer.step()
        if loss is None:
            return None
        loss = loss.detach().clone()
        dist.all_reduce(loss, group=self.groups["dp"])
        return loss.item() / self.dp
        ### END SOLUTION
