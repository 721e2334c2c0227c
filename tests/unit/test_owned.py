"""Handing a rank only what it owns (graders.training.owned): its chunk real, the rest NaN."""

import torch

from graders.training.owned import block_state_for, only_own_chunk


def test_only_the_ranks_chunk_is_real_as_torch_chunk_splits():
    full = torch.arange(10.0).reshape(5, 2)
    for rank, rows in enumerate(([0, 1], [2, 3], [4])):  # torch.chunk(5, 3): 2, 2, 1
        handed = only_own_chunk(full, 0, rank, 3)
        assert handed.shape == full.shape and handed.dtype == full.dtype
        real = ~handed.isnan().any(dim=1)
        assert real.nonzero().flatten().tolist() == rows
        assert torch.equal(handed[rows], full[rows])
    by_columns = only_own_chunk(full, 1, 1, 2)
    assert by_columns[:, 0].isnan().all() and torch.equal(by_columns[:, 1], full[:, 1])


def test_one_rank_and_integer_tensors_are_handed_whole():
    full = torch.randn(4, 4)
    assert torch.equal(only_own_chunk(full, 0, 0, 1), full)
    ids = torch.arange(8)
    assert torch.equal(only_own_chunk(ids, 0, 1, 2), ids)


def test_a_blocks_split_layers_are_poisoned_and_the_rest_whole():
    state = {
        "ln.weight": torch.ones(4),
        "fc1.weight": torch.ones(8, 4),
        "fc1.bias": torch.ones(8),
        "fc2.weight": torch.ones(4, 8),
        "fc2.bias": torch.ones(4),
    }
    handed = block_state_for(state, 1, 2)
    assert not handed["ln.weight"].isnan().any() and not handed["fc2.bias"].isnan().any()
    assert handed["fc1.weight"][:4].isnan().all() and not handed["fc1.weight"][4:].isnan().any()
    assert handed["fc1.bias"][:4].isnan().all()
    assert handed["fc2.weight"][:, :4].isnan().all() and not handed["fc2.weight"][:, 4:].isnan().any()
