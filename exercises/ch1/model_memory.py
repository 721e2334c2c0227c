# Generated from solutions/ch1/model_memory.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 1: a memory ledger for training, built by hand.

The model is the kit's GPT (``graders.training.gpt.GPT``), described by :class:`GPTConfig`:

* a token embedding ``[vocab_size, hidden]`` and a learned position embedding
  ``[max_seq_len, hidden]``;
* ``layers`` blocks, each ``x + attention(ln1(x))`` then ``x + mlp(ln2(x))``:

  - attention: linear layers ``q``, ``k``, ``v`` and ``proj``, each ``[hidden, hidden]`` with a
    bias; ``heads`` heads of ``hidden / heads`` features, causal;
  - MLP: ``fc1`` ``[hidden, ffn_hidden]`` and ``fc2`` ``[ffn_hidden, hidden]``, both with a bias,
    GELU between them (``ffn_hidden`` defaults to ``4 · hidden``);
  - every LayerNorm has a weight and a bias of ``hidden`` elements; dropout (probability
    ``dropout``) after ``proj`` and after ``fc2``;
* a final LayerNorm, and an LM head ``[hidden, vocab_size]`` without bias, which is the token
  embedding itself when ``tied``.

``count_parameters(cfg) -> int``: the number of distinct parameter elements (a tied weight
counts once).

``training_memory(n_params, *, precision, optimizer) -> Ledger``: the bytes a training step keeps
for ``n_params`` parameters, by role (see :class:`Ledger`), right after the optimizer's step:

* ``precision="fp32"``: parameters, gradients and optimizer state in float32;
* ``precision="mixed"``: bf16 parameters and gradients, an fp32 master copy of every parameter,
  and the optimizer (stepping the masters) keeping its state in float32;
* ``precision="bf16"``: everything in bfloat16, no master copy;
* ``optimizer="adam"`` keeps two tensors per parameter (m, v), ``"sgd_momentum"`` one, ``"sgd"``
  none. Only per-element state counts: torch's step counters (a scalar per tensor) do not.

For mixed-precision Adam the ledger must add up to the ZeRO paper's 16 bytes per parameter.

``activation_memory(cfg, micro_batch, seq_len, *, recompute) -> int``: the bytes autograd saves
for backward in **one block**'s forward on an input ``[seq_len, micro_batch, hidden]`` of dtype
``cfg.dtype``, counting each saved tensor's storage once and not counting parameters. What the
block saves on the CPU (each tensor in ``cfg.dtype`` unless said otherwise):

* a LayerNorm: its input, and its mean and reciprocal standard deviation (``[s, b, 1]`` each);
* a linear layer: its input (``q``, ``k`` and ``v`` share theirs: one tensor);
* the attention core: q and k, each as a contiguous copy ``[b·heads, s, d]``, the causal mask
  (``[s, s]``, one byte per element, ``torch.bool``), the softmax's output ``[b, heads, s, s]``, v
  as a copy ``[b·heads, s, d]``; then ``proj`` saves the heads' output, reshaped (one more copy);
* GELU: its input; ``fc2``: GELU's output;
* a dropout with ``dropout > 0``: its mask, in ``cfg.dtype`` on the CPU (one byte on a GPU).

``recompute`` chooses what is recomputed in backward instead of saved: ``"none"``;
``"selective"``, the attention core (Korthikanti et al., 2022): from q, k, v to the heads'
output, run under a checkpoint that saves only q, k and v (the ``q``/``k``/``v`` layers'
outputs, ``[s, b, hidden]`` each); ``"full"``, the whole block under a checkpoint that saves only
its input.

An unknown precision, optimizer or recompute mode raises ``ValueError``.
"""

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int
    max_seq_len: int
    hidden: int
    heads: int
    layers: int
    ffn_hidden: int | None = None  # 4 * hidden when None
    tied: bool = True
    dropout: float = 0.0
    dtype: torch.dtype = torch.float32


@dataclass(frozen=True)
class Ledger:
    """Bytes by role. ``total`` is their sum."""

    params: int
    grads: int
    optimizer_states: int
    master_weights: int

    @property
    def total(self) -> int:
        return self.params + self.grads + self.optimizer_states + self.master_weights


def count_parameters(cfg: GPTConfig) -> int:
    raise NotImplementedError("[dtlab TODO] ch1/model_memory.py: implement count_parameters")


def training_memory(n_params: int, *, precision: str = "mixed", optimizer: str = "adam") -> Ledger:
    raise NotImplementedError("[dtlab TODO] ch1/model_memory.py: implement training_memory")


def activation_memory(cfg: GPTConfig, micro_batch: int, seq_len: int, *, recompute: str = "none") -> int:
    raise NotImplementedError("[dtlab TODO] ch1/model_memory.py: implement activation_memory")
