"""The ZeRO-Infinity exercise's drive (graders/training/swap_files.py): its requests, its log, the
torn write of the crash check, and what it refuses."""

import gc
import os

import pytest
import torch

from graders.training.swap_files import SimulatedPowerLoss, SwapFiles


@pytest.fixture
def files(tmp_path):
    swap = SwapFiles(tmp_path)
    yield swap
    swap.close()


def test_a_missing_or_unusable_swap_dir_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="not an existing folder"):
        SwapFiles(tmp_path / "missing")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="not an existing folder"):
        SwapFiles(tmp_path / "file")


def test_writes_reads_and_renames_keep_the_bytes(files):
    drive = files.drive()
    drive.write("part0.master.tmp", torch.arange(6, dtype=torch.float32))
    drive.replace("part0.master.tmp", "part0.master")
    out, scalar = torch.empty(6), torch.empty(())
    drive.read_async("part0.master", out).wait()
    drive.write("part0.step", torch.tensor(3.0))
    drive.read("part0.step", scalar)
    assert out.tolist() == list(range(6)) and float(scalar) == 3.0
    assert files.files() == {"part0.master": 24, "part0.step": 4}
    ops = [(e.op, e.name, e.is_async) for e in files.events]
    assert ops[0] == ("write", "part0.master.tmp", False) and ops[2] == ("read", "part0.master", True)
    read = files.events[2]
    assert read.waited is not None and read.waited > read.seq


def test_what_it_refuses(files):
    drive = files.drive()
    with pytest.raises(ValueError, match="plain file name"):
        drive.write("../escape", torch.zeros(1))
    with pytest.raises(ValueError, match="contiguous CPU tensor"):
        drive.write("x", torch.zeros(4, 4).t())
    drive.write("x", torch.zeros(4))
    with pytest.raises(ValueError, match="holds 16 bytes"):
        drive.read("x", torch.empty(3))
    with pytest.raises(FileNotFoundError):
        drive.read_async("y", torch.empty(1)).wait()
    with pytest.raises(AttributeError):
        drive.write = print
    assert not hasattr(drive, "events")


def test_a_torn_write_keeps_half_the_bytes_and_fails(files):
    drive = files.drive()
    drive.write("a", torch.ones(8))
    files.tear_write(2)
    drive.write("b", torch.ones(8))
    with pytest.raises(SimulatedPowerLoss):
        drive.write("a", torch.zeros(8))
    assert files.files() == {"a": 16, "b": 32}


def test_resident_bytes_are_the_swapped_tensors_alive_at_each_request(files):
    drive = files.drive()
    files.begin_step(1)
    kept = torch.ones(10)
    drive.write("a", kept)
    drive.write("b", torch.ones(5))  # freed at once
    gc.collect()
    drive.write("c", torch.ones(1))
    assert files.resident_peak[1] == 60  # a and b alive together at the second write
    del kept
    gc.collect()
    assert files._resident() == 0


def test_observed_optimizer_steps_are_logged_with_the_file_that_filled_them(files):
    drive = files.drive()
    drive.write("part2.master", torch.ones(3))
    master = torch.nn.Parameter(torch.empty(3))
    drive.read("part2.master", master.data)
    master.grad = torch.ones(3)
    files.observed(torch.optim.SGD)([master], lr=0.1).step()
    assert [(e.op, e.name) for e in files.events[-2:]] == [
        ("compute_begin", "part2.master"),
        ("compute_end", "part2.master"),
    ]
    assert os.path.isdir(files.swap_dir)
