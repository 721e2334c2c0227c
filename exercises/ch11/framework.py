# Generated from solutions/ch11/framework.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
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
        raise NotImplementedError("[dtlab TODO] ch11/framework.py: implement Trainer3D.__init__")

    def train_step(self, tokens: torch.Tensor, targets: torch.Tensor) -> float | None:
        raise NotImplementedError("[dtlab TODO] ch11/framework.py: implement Trainer3D.train_step")
