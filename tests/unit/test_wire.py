"""The restricted wire format: round trips plain data and refuses anything else."""

import pickle

import pytest
import torch

from graders.world import wire


def test_round_trip():
    value = {
        "t": torch.arange(6, dtype=torch.int64).reshape(2, 3),
        "empty": torch.empty(0, 3),
        "bf16": torch.ones(2, dtype=torch.bfloat16),
        "nested": [1, 2.5, "x", None, True, (3, "y")],
        "dtype": torch.float64,
    }
    back = wire.decode(wire.encode(value))
    assert torch.equal(back["t"], value["t"]) and back["empty"].shape == (0, 3)
    assert back["bf16"].dtype == torch.bfloat16 and back["dtype"] is torch.float64
    assert back["nested"] == [1, 2.5, "x", None, True, (3, "y")]


def test_refuses_to_encode_objects():
    with pytest.raises(TypeError):
        wire.encode({"x": object()})


@pytest.mark.parametrize(
    "payload",
    [
        pickle.dumps({"value": 1}),
        b"DTW1" + b"\xff\xff\xff\x7f",
        wire.encode({"t": torch.ones(4)})[:-3],
        wire.encode({"t": torch.ones(4)}) + b"extra",
        b"DTW1" + (26).to_bytes(4, "little") + b'{"~pickle":"cos\\nsystem\\n"}',
    ],
)
def test_refuses_forged_or_corrupt_messages(payload):
    with pytest.raises(wire.WireError):
        wire.decode(payload)
