"""What autograd keeps for backward: the bytes of the tensors saved while a hook is open.

:class:`SavedBytes` is a ``torch.autograd.graph.saved_tensors_hooks`` context: every tensor
autograd saves while it is open (whoever's graph it belongs to) is counted once per storage, at
its storage's full size (a saved view keeps its whole buffer alive). Storages of ``ignore`` (a
model's parameters, say: a linear layer saves its weight, which is not an activation) are not
counted. Hooks opened inside it (a checkpoint's own) take the tensors they see away from it.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


def _key(storage) -> int:
    return storage.data_ptr() or id(storage)


class SavedBytes(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self, ignore: Iterable[torch.Tensor] = ()) -> None:
        self.storages: dict[int, int] = {}
        self._ignored = {_key(t.untyped_storage()) for t in ignore}
        super().__init__(self._pack, self._unpack)

    def _pack(self, tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        key = _key(storage)
        if key not in self._ignored:
            self.storages.setdefault(key, storage.nbytes())
        return tensor

    @staticmethod
    def _unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    @property
    def nbytes(self) -> int:
        return sum(self.storages.values())
