# Generated from solutions/ch3/state_memory.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 3: what an optimizer's state costs in memory.

``optimizer_state_bytes(name, n_params, dtype)``: the bytes of per-element state the optimizer
``name`` keeps, after its first step, for ``n_params`` parameters of ``dtype`` (a ``torch.dtype``),
when every parameter has a gradient. Per-element state is the tensors shaped like a parameter:
``torch.optim`` keeps them in the parameter's dtype. The step counters Adam, AdamW and Adagrad
also keep (one float32 scalar per parameter *tensor*, whatever its size) are not per element and
are left out. The names:

==================  ===========================================================
``"sgd"``           plain SGD (``momentum=0``)
``"sgd_momentum"``  SGD with momentum
``"adam"``          Adam (``amsgrad=False``)
``"adam_amsgrad"``  Adam with ``amsgrad=True``
``"adamw"``         AdamW
``"adagrad"``       Adagrad
``"lion"``          Lion
==================  ===========================================================

``bytes_per_param(precision, optimizer)``: the ZeRO paper's K, the bytes per parameter the
optimizer needs beyond the parameter and its gradient: its per-element state plus, in mixed
precision, the fp32 master copy of the parameter. ``optimizer`` is one of the names above and
``precision`` one of:

============  ======================================================================
``"fp32"``    parameters, gradients and optimizer state in float32
``"mixed"``   16-bit parameters and gradients; an fp32 master copy of every parameter, and
              the optimizer's state in float32 (the optimizer steps the masters)
``"bf16"``    everything in bfloat16, no master copy
============  ======================================================================

So mixed-precision Adam has K = 4 (master) + 4 + 4 (the two moments) = 12, and with the 2 + 2
bytes of the 16-bit parameter and gradient, the paper's 16 bytes per parameter.

An unknown name or precision raises ``ValueError``.
"""

import torch


def optimizer_state_bytes(name: str, n_params: int, dtype: torch.dtype) -> int:
    raise NotImplementedError("[dtlab TODO] ch3/state_memory.py: implement optimizer_state_bytes")


def bytes_per_param(precision: str, optimizer: str) -> int:
    raise NotImplementedError("[dtlab TODO] ch3/state_memory.py: implement bytes_per_param")
