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
    ### BEGIN SOLUTION
    h, f = cfg.hidden, cfg.ffn_hidden or 4 * cfg.hidden
    layer_norm = 2 * h
    attention = 4 * (h * h + h)
    mlp = h * f + f + f * h + h
    block = attention + mlp + 2 * layer_norm
    embeddings = cfg.vocab_size * h + cfg.max_seq_len * h
    head = 0 if cfg.tied else cfg.vocab_size * h
    return embeddings + cfg.layers * block + layer_norm + head
    ### END SOLUTION


### BEGIN SOLUTION
#: bytes per element: (parameter, gradient, optimizer state, master copy)
PRECISION_BYTES = {"fp32": (4, 4, 4, 0), "mixed": (2, 2, 4, 4), "bf16": (2, 2, 2, 0)}
STATE_TENSORS = {"sgd": 0, "sgd_momentum": 1, "adam": 2}
### END SOLUTION


def training_memory(n_params: int, *, precision: str = "mixed", optimizer: str = "adam") -> Ledger:
    ### BEGIN SOLUTION
    if precision not in PRECISION_BYTES:
        raise ValueError(f"unknown precision {precision!r}")
    if optimizer not in STATE_TENSORS:
        raise ValueError(f"unknown optimizer {optimizer!r}")
    param, grad, state, master = PRECISION_BYTES[precision]
    return Ledger(
        params=param * n_params,
        grads=grad * n_params,
        optimizer_states=STATE_TENSORS[optimizer] * state * n_params,
        master_weights=master * n_params,
    )
    ### END SOLUTION


def activation_memory(cfg: GPTConfig, micro_batch: int, seq_len: int, *, recompute: str = "none") -> int:
    ### BEGIN SOLUTION
    if recompute not in ("none", "selective", "full"):
        raise ValueError(f"unknown recompute mode {recompute!r}")
    s, b, h, a = seq_len, micro_batch, cfg.hidden, cfg.heads
    f = cfg.ffn_hidden or 4 * h
    e = cfg.dtype.itemsize
    if recompute == "full":
        return s * b * h * e
    layer_norms = 2 * (s * b * h + 2 * s * b)  # input, mean and rstd, twice
    linear_inputs = 3 * s * b * h + 2 * s * b * f  # ln1 out (q, k, v), core out (proj), ln2 out, gelu in/out
    dropout_masks = 2 * s * b * h if cfg.dropout > 0 else 0
    saved = e * (layer_norms + linear_inputs + dropout_masks)
    if recompute == "selective":
        return saved + e * 3 * s * b * h  # the checkpoint keeps q, k and v
    core = 3 * s * b * h + a * b * s * s  # copies of q, k, v and the softmax output
    return saved + e * core + s * s  # and the causal mask, one byte per element
    ### END SOLUTION
