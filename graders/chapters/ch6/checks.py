"""Chapter 6 judgements: values against the single-device reference, then the collectives of
each direction from the trace (exactly the calls the lesson needs, with their bytes).

Every function takes the run (what came back from the workers) and the case, and fails with a
teaching message naming the rank and the example.
"""

from __future__ import annotations

import math

import torch

from graders.chapters.ch6 import reference
from graders.chapters.ch6.cases import MAPPINGS, LinearCase, MappingCase
from graders.chapters.ch6.graph import MATMUL_NODES, PLUMBING_NODES
from graders.comm.collective_calls import assert_exact_calls
from graders.judge.arithmetic import Work, assert_work_within, recorded_ops
from graders.judge.checks import assert_tensor_equal, assert_unchanged, fail
from graders.words.messages import say

#: a block sums over more terms in another order than one device does
BLOCK_TOLERANCES = {torch.float32: (1e-3, 1e-4), torch.float64: (1e-9, 1e-11)}


def ran_backward(run, case) -> None:
    for rank in case.ranks:
        why = run[rank]["skipped"]
        if why:
            fail(say("ch6:no backward", rank=rank, why=why), case, say("ch6:no backward:hint"))


def _nbytes(shape, itemsize: int) -> int:
    return int(torch.Size(shape).numel()) * itemsize


# -- the conjugate mappings ---------------------------------------------------------------------


def _mapping_calls(case: MappingCase, direction: str) -> list:
    _, forward, backward = MAPPINGS[case.mapping]
    family = forward if direction == "forward" else backward
    tensor = case.inputs[0] if direction == "forward" else case.grads[0]
    return [(family, tensor.numel() * tensor.element_size())] if family else []


def assert_mapping_forward(run, case: MappingCase) -> None:
    expected = reference.mapping(case)
    hint = say(f"ch6:{case.mapping}:forward:hint")
    for i, rank in enumerate(case.ranks):
        what = say("ch6:output", rank=rank)
        assert_tensor_equal(run[rank]["output"], expected[i][0], what=what, case=case, hint=hint)
        assert_unchanged(
            case.inputs[i], run[rank]["input_after"], what=say("ch6:input", rank=rank), case=case
        )
    calls = _mapping_calls(case, "forward")
    assert_exact_calls(run.traces, case.ranks, "forward_end", calls, case, hint, direction=say("ch6:forward"))
    _assert_mapping_work(run, case, "forward")


def _assert_mapping_work(run, case: MappingCase, direction: str) -> None:
    """A conjugate only moves values: no matrix product, and no tensor larger than the group's
    whole input (what a gather makes)."""
    bound = Work(0, case.n * case.numel, say("ch6:mapping work", mapping=case.mapping))
    hint = say("ch6:mapping recorded:hint")
    for rank in case.ranks:
        assert_work_within(run[rank]["hand_written"], direction, bound, rank=rank, case=case, hint=hint)


def assert_mapping_backward(run, case: MappingCase) -> None:
    expected = reference.mapping(case)
    hint = say(f"ch6:{case.mapping}:backward:hint")
    ran_backward(run, case)
    for i, rank in enumerate(case.ranks):
        what = say("ch6:input grad", rank=rank)
        assert_tensor_equal(run[rank]["grad"], expected[i][1], what=what, case=case, hint=hint)
    for rank in case.ranks:
        ops = recorded_ops(run[rank]["hand_written"])
        if ops:
            said = say("ch6:mapping recorded", rank=rank, mapping=case.mapping, ops=ops)
            fail(said, case, say("ch6:mapping recorded:hint"))
    calls = _mapping_calls(case, "backward")
    assert_exact_calls(
        run.traces, case.ranks, "backward_end", calls, case, hint, direction=say("ch6:backward")
    )
    _assert_mapping_work(run, case, "backward")


# -- the linear layers ----------------------------------------------------------------------------


def _linear_expected(case: LinearCase, full: dict, i: int) -> dict:
    """Group rank ``i``'s share of the single-device values."""
    n, column = case.n, case.kind == "column"
    out, dx, dw, db = full["output"], full["input_grad"], full["weight_grad"], full["bias_grad"]
    if column:
        out = out if case.gather_output else out.chunk(n, -1)[i]
        dx = dx.chunk(n, 0)[i] if case.sequence_parallel else dx
        weight, dw = case.weight.chunk(n, 0)[i], dw.chunk(n, 0)[i]
        db = db.chunk(n, 0)[i] if db is not None else None
    else:
        out = out.chunk(n, 0)[i] if case.sequence_parallel else out
        dx = dx.chunk(n, -1)[i] if case.input_is_parallel else dx
        weight, dw = case.weight.chunk(n, 1)[i], dw.chunk(n, 1)[i]
        db = None  # the whole bias on every rank: checked by _assert_bias_grad_sums
    return {"output": out, "input_grad": dx, "weight": weight, "weight_grad": dw, "bias_grad": db}


def _linear_hint(case: LinearCase):
    return say("ch6:column:hint") if case.kind == "column" else say("ch6:row:hint")


def assert_linear(run, case: LinearCase, *, hint=None) -> None:
    """Output, input gradient, weight shard and parameter gradients of every rank."""
    full = reference.linear(case)
    hint = hint or _linear_hint(case)
    ran_backward(run, case)
    for i, rank in enumerate(case.ranks):
        got, want = run[rank], _linear_expected(case, full, i)
        if not case.bias and got["has_bias"]:
            fail(say("ch6:bias when none", rank=rank), case, hint)
        for key, what in (
            ("weight", say("ch6:weight shard", rank=rank)),
            ("output", say("ch6:output", rank=rank)),
            ("input_grad", say("ch6:input grad", rank=rank)),
            ("weight_grad", say("ch6:weight grad", rank=rank)),
        ):
            assert_tensor_equal(got[key], want[key], what=what, case=case, hint=hint)
        if case.bias and want["bias_grad"] is not None:
            assert_tensor_equal(
                got["bias_grad"],
                want["bias_grad"],
                what=say("ch6:bias grad", rank=rank),
                case=case,
                hint=hint,
            )
    if case.bias and case.kind == "row":
        _assert_bias_grad_sums(run, case, full["bias_grad"], hint)


def _assert_bias_grad_sums(run, case: LinearCase, expected, hint) -> None:
    """Row bias: the whole gradient on every rank, or (sequence parallel) summed over the group."""
    grads = [run[rank]["bias_grad"] for rank in case.ranks]
    if not case.sequence_parallel:
        for rank, grad in zip(case.ranks, grads, strict=True):
            assert_tensor_equal(grad, expected, what=say("ch6:bias grad", rank=rank), case=case, hint=hint)
        return
    for rank, grad in zip(case.ranks, grads, strict=True):
        if not isinstance(grad, torch.Tensor) or grad.shape != expected.shape or grad.dtype != expected.dtype:
            assert_tensor_equal(grad, expected, what=say("ch6:bias grad", rank=rank), case=case, hint=hint)
    total = torch.stack(grads).sum(0)
    what = say("ch6:summed grad", name="bias")
    assert_tensor_equal(total, expected, what=what, case=case, hint=say("ch6:partial grads:hint"))


def linear_calls(case: LinearCase) -> tuple[list, list]:
    """(forward calls, backward calls) the layer needs on every rank."""
    n, size = case.n, case.itemsize
    lead = case.lead
    local_lead = (lead[0] // n, *lead[1:]) if case.sequence_parallel else lead
    if case.kind == "column":
        forward = (
            [("all_gather", _nbytes((*local_lead, case.in_features), size))] if case.sequence_parallel else []
        )
        if case.gather_output:
            forward.append(("all_gather", _nbytes((*lead, case.out_features // n), size)))
        family = "reduce_scatter" if case.sequence_parallel else "all_reduce"
        return forward, [(family, _nbytes((*lead, case.in_features), size))]
    family = "reduce_scatter" if case.sequence_parallel else "all_reduce"
    forward = [(family, _nbytes((*lead, case.out_features), size))]
    backward = (
        [("all_gather", _nbytes((*local_lead, case.out_features), size))] if case.sequence_parallel else []
    )
    if not case.input_is_parallel:
        backward.append(("all_gather", _nbytes((*lead, case.in_features // n), size)))
    return forward, backward


def assert_linear_traffic(run, case: LinearCase) -> None:
    assert_linear(run, case)
    forward, backward = linear_calls(case)
    hint = say("ch6:column traffic:hint") if case.kind == "column" else say("ch6:row traffic:hint")
    assert_exact_calls(
        run.traces, case.ranks, "forward_end", forward, case, hint, direction=say("ch6:forward")
    )
    assert_exact_calls(
        run.traces, case.ranks, "backward_end", backward, case, hint, direction=say("ch6:backward")
    )


def assert_hand_written_backward(run, case: LinearCase) -> None:
    """The row layer's weight and bias get their gradients from a custom autograd Function of
    the submission, and autograd differentiates no matrix product anywhere in the layer."""
    assert_linear(run, case)
    hint = say("ch6:hand written:hint")
    for rank in case.ranks:
        nodes = run[rank]["nodes"]
        matmuls = sorted(set(nodes.get("kinds", ())) & MATMUL_NODES)
        if matmuls:
            fail(say("ch6:autograd matmul", rank=rank, nodes=", ".join(matmuls)), case, hint)
        names = ("weight", "bias") if case.bias else ("weight",)
        for name in names:
            sources = nodes.get("sources", {}).get(name, [])
            if not sources or not all(s.startswith("custom:dtlab_impl.") for s in sources):
                shown = ", ".join(sources) or "—"
                fail(say("ch6:not hand written", rank=rank, name=name, nodes=shown), case, hint)
        for name in (*names, "input"):
            computed = [k for k in nodes.get("paths", {}).get(name, []) if not _hand_or_plumbing(k)]
            if computed:
                said = {"rank": rank, "name": name, "nodes": ", ".join(computed)}
                fail(say("ch6:autograd on the path", **said), case, hint)
        if nodes.get("graph_in_backward"):
            fail(say("ch6:graph in backward", rank=rank), case, hint)
        report = nodes.get("hand_written", {})
        if recorded_ops(report):
            fail(say("ch6:graph recorded", rank=rank, ops=recorded_ops(report)), case, hint)
        for direction, bound in row_layer_work(case).items():
            assert_work_within(report, direction, bound, rank=rank, case=case, hint=hint)
        for name in names:
            verdict = nodes.get("returned", {}).get(name, "not returned")
            if verdict != "kept":
                fail(say("ch6:gradient not returned", rank=rank, name=name, verdict=verdict), case, hint)


def row_layer_work(case: LinearCase) -> dict[str, Work]:
    """What a rank's row layer computes: forward one product ``[N, in/t] × [in/t, out]`` of its
    ``N`` tokens (the whole sequence, also with sequence parallelism), backward two of the same
    size (the input's and the weight's gradients) and, for a bias summed by a product, ``N × out``.
    No tensor larger than the layer's own: its whole input or output gradient, or its weight."""
    tokens = math.prod(case.lead)
    local = case.in_features // case.n
    product = tokens * case.out_features * local
    largest = max(tokens * case.in_features, tokens * case.out_features, case.out_features * local)
    shape = f"{tokens}×{local}·{local}×{case.out_features}"
    return {
        "forward": Work(product, largest, say("ch6:row work:forward", shape=shape)),
        "backward": Work(
            2 * product + tokens * case.out_features, largest, say("ch6:row work:backward", shape=shape)
        ),
    }


def _hand_or_plumbing(kind: str) -> bool:
    """A node a hand-written backward may leave between the output and a tensor."""
    return kind.startswith("custom:dtlab_impl.") or kind in PLUMBING_NODES


def assert_linear_like_torch(run, case: LinearCase) -> None:
    """The same local values as torch's ColwiseParallel / RowwiseParallel DTensor plan."""
    hint = say("ch6:dtensor:hint")
    for rank in case.ranks:
        mine, torch_values = run[rank]["student"], run[rank]["torch"]
        if mine["skipped"]:
            fail(say("ch6:no backward", rank=rank, why=mine["skipped"]), case, say("ch6:no backward:hint"))
        for key in ("weight", "output", "input_grad", "weight_grad", "bias_grad"):
            if torch_values[key] is None:
                continue
            what = say("ch6:vs dtensor", rank=rank, name=key)
            assert_tensor_equal(
                mine[key], torch_values[key], what=what, case=case, hint=hint, tolerances=BLOCK_TOLERANCES
            )
