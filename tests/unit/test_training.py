"""The shared training helpers: the driver's reference optimizer, the memory walk, trace phases."""

import pytest
import torch

from graders.comm.trace import Event, Traces
from graders.training import OptimizerSpec, train_single_device, trainable
from graders.training.tiny_lm import build_model, lm_loss, make_batches, named_parameters

SPECS = [
    OptimizerSpec("adamw", 0.03, 0.2),
    OptimizerSpec("sgd", 0.2, 0.05, momentum=0.9),
    OptimizerSpec("sgd", 0.05, 0.2),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("spec", SPECS, ids=repr)
def test_reference_optimizer_is_torch_optim(spec, dtype):
    batches = make_batches(3, 3, 4)
    reference = train_single_device(build_model(3, dtype=dtype), batches, spec)
    model = build_model(3, dtype=dtype)
    optimizer = spec.build(trainable(model))
    for step, batch in enumerate(batches):
        optimizer.zero_grad(set_to_none=True)
        lm_loss(model, batch.tokens, batch.targets).backward()
        optimizer.step()
        for name, value in named_parameters(model).items():
            assert torch.equal(value, reference[step][name]), (step, name)


def test_zero_missing_grads_moves_the_unused_parameter():
    spec = SPECS[0]
    skipped = train_single_device(build_model(0), make_batches(0, 3, 2), spec)
    zeroed = train_single_device(build_model(0), make_batches(0, 3, 2), spec, zero_missing_grads=True)
    assert torch.equal(skipped[-1]["unused"], build_model(0).unused.detach())
    assert not torch.equal(zeroed[-1]["unused"], skipped[-1]["unused"])


def test_phases_cut_a_trace_at_its_marks():
    events = [
        Event("broadcast", 8, 0, (0, 1), 1, ""),
        Event("mark:constructed", 0, -1, (), 2, ""),
        Event("all_reduce", 4, -1, (0, 1), 3, ""),
        Event("mark:backward_end", 0, -1, (), 4, ""),
        Event("all_reduce", 4, -1, (0, 1), 5, ""),
    ]
    traces = Traces([events])
    assert [(label, [e.op for e in calls]) for label, calls in traces.phases(0)] == [
        ("constructed", ["broadcast"]),
        ("backward_end", ["all_reduce"]),
        ("", ["all_reduce"]),
    ]
    assert [[e.t_ns for e in calls] for calls in traces.phase(0, "backward_end")] == [[3]]
