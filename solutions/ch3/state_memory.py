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

### BEGIN SOLUTION
#: per-element state tensors each optimizer keeps
STATE_TENSORS = {
    "sgd": 0,
    "sgd_momentum": 1,
    "adam": 2,
    "adam_amsgrad": 3,
    "adamw": 2,
    "adagrad": 1,
    "lion": 1,
}
#: bytes of one element of the optimizer's state, and of the master copy, per precision
STATE_BYTES = {"fp32": 4, "mixed": 4, "bf16": 2}
MASTER_BYTES = {"fp32": 0, "mixed": 4, "bf16": 0}


def _tensors(name: str) -> int:
    if name not in STATE_TENSORS:
        raise ValueError(f"unknown optimizer {name!r}; choose from {', '.join(STATE_TENSORS)}")
    return STATE_TENSORS[name]


### END SOLUTION


def optimizer_state_bytes(name: str, n_params: int, dtype: torch.dtype) -> int:
    ### BEGIN SOLUTION
    return _tensors(name) * n_params * dtype.itemsize
    ### END SOLUTION


def bytes_per_param(precision: str, optimizer: str) -> int:
    ### BEGIN SOLUTION
    if precision not in STATE_BYTES:
        raise ValueError(f"unknown precision {precision!r}; choose from {', '.join(STATE_BYTES)}")
    return _tensors(optimizer) * STATE_BYTES[precision] + MASTER_BYTES[precision]
    ### END SOLUTION
