"""The memory ledger counts storages the way an allocator does, and draws bars."""

import torch

from graders.comm.trace import Event
from graders.comm.volume import ring_bytes_sent
from graders.training.ledger import render_bars, storage_bytes


def test_storage_bytes_counts_each_storage_once_at_full_size():
    big = torch.zeros(100)
    assert storage_bytes([big, big[:10], big[50:]]) == 400  # views keep the whole buffer
    assert storage_bytes([big, torch.zeros(3)]) == 412
    assert storage_bytes([big, torch.zeros(3)], excluding=[big[:1]]) == 12
    freed = torch.zeros(8)
    freed.untyped_storage().resize_(0)
    assert storage_bytes([freed]) == 0  # a released buffer costs nothing


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
    assert picture.in_lang("vi").splitlines()[2].endswith("1.600  > 800 ✗")  # Vietnamese groups with dots


def test_ring_bytes_sent_converts_what_the_recorder_saw():
    def event(op, nbytes, n):
        return Event(op, nbytes, -1, tuple(range(n)), 0, "")

    assert ring_bytes_sent(event("all_reduce", 400, 4)) == 600  # 2 (N-1)/N of the tensor
    assert ring_bytes_sent(event("reduce_scatter_single", 400, 4)) == 300  # (N-1)/N of the input
    assert ring_bytes_sent(event("all_gather_into_tensor", 100, 4)) == 300  # (N-1) own pieces
    assert ring_bytes_sent(event("recv", 100, 2)) == 0
