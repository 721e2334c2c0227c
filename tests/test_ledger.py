"""The memory ledger counts storages the way an allocator does, finds hidden tensors, and draws bars."""

import torch
from torch import nn

from graders.comm.trace import Event
from graders.comm.volume import ring_bytes_sent
from graders.training.ledger import reachable_tensors, render_bars, storage_bytes


def test_storage_bytes_counts_each_storage_once_at_full_size():
    big = torch.zeros(100)
    assert storage_bytes([big, big[:10], big[50:]]) == 400  # views keep the whole buffer
    assert storage_bytes([big, torch.zeros(3)]) == 412
    assert storage_bytes([big, torch.zeros(3)], excluding=[big[:1]]) == 12
    freed = torch.zeros(8)
    freed.untyped_storage().resize_(0)
    assert storage_bytes([freed]) == 0  # a released buffer costs nothing


def test_reachable_tensors_finds_attributes_closures_hooks_and_grads():
    hidden = torch.ones(5)
    layer = nn.Linear(2, 3)
    layer.weight.grad = torch.zeros(3, 2)
    layer.register_forward_hook(lambda module, args, out: hidden)

    class Holder:
        def __init__(self):
            self.layers = [layer]
            self.table = {"buffer": torch.zeros(7, dtype=torch.float64)}
            self.index = torch.arange(4)  # not floating point: bookkeeping, not memory of the lesson

    tensors, grads = reachable_tensors(Holder())
    assert storage_bytes(tensors) == (6 + 3 + 5) * 4 + 7 * 8
    assert storage_bytes(grads) == 6 * 4


def test_render_bars_marks_what_breaks_its_limit():
    picture = render_bars(
        "ZeRO-1, 2 ranks",
        {0: {"params": 800, "optimizer state": 1600}, 1: {"params": 800, "optimizer state": 400}},
        {"optimizer state": 800},
    )
    lines = picture.splitlines()
    assert lines[0].startswith("ZeRO-1, 2 ranks, bytes per rank")
    assert lines[2].endswith("1,600  > 800 ✗")
    assert lines[4].endswith("400  ≤ 800") and "┃" in lines[4]
    assert lines[1].startswith("rank 0") and lines[3].startswith("rank 1")


def test_ring_bytes_sent_converts_what_the_recorder_saw():
    def event(op, nbytes, n):
        return Event(op, nbytes, -1, tuple(range(n)), 0, "")

    assert ring_bytes_sent(event("all_reduce", 400, 4)) == 600  # 2 (N-1)/N of the tensor
    assert ring_bytes_sent(event("reduce_scatter_single", 400, 4)) == 300  # (N-1)/N of the input
    assert ring_bytes_sent(event("all_gather_into_tensor", 100, 4)) == 300  # (N-1) own pieces
    assert ring_bytes_sent(event("recv", 100, 2)) == 0
