"""What chapter 8 measures: the bytes autograd saves for backward, and the FLOPs a pass costs.

The saved bytes are counted by :class:`graders.training.saved_bytes.SavedBytes` (re-exported here).
:class:`MatmulFlops` counts the FLOPs of the matrix products run while it is open, with torch's
own FLOP formulas (``torch.utils.flop_counter.flop_registry``; elementwise work is not counted).
It is the kit's own dispatch mode rather than torch's ``FlopCounterMode``, whose bookkeeping
reaches for the dispatch stack from inside graded code, which the guard refuses.
"""

from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from graders.training.saved_bytes import SavedBytes  # noqa: F401  (re-exported for the tasks)


class MatmulFlops(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        count = flop_registry.get(func._overloadpacket)
        if count is not None:
            self.total += int(count(*args, **kwargs, out_val=out))
        return out


def kept_after_forward(ledger, out, rng_state: torch.Tensor | None = None) -> int:
    """Bytes of the storages born in the ledger's ``forward`` phase still alive, ``out``'s aside,
    and a copy of ``rng_state`` aside (the generator's state when forward began, which a
    checkpoint keeps to repeat its randomness): only a storage equal to it byte for byte."""
    alive = sum(ledger.alive_born_in("forward").values())
    kept = alive - (ledger.bytes_of([out]) if isinstance(out, torch.Tensor) else 0)
    if rng_state is not None:
        state = rng_state.view(torch.uint8).flatten()
        for storage in ledger.storages_born_in("forward"):
            if storage.nbytes() == state.numel() and _bytes(storage).equal(state):
                kept -= storage.nbytes()
                break
    return kept


def _bytes(storage) -> torch.Tensor:
    return torch.empty(0, dtype=torch.uint8).set_(storage)
