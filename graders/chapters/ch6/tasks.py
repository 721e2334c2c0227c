"""Chapter 6 worker tasks: run the student's operator, layer or block forward and backward.

Each task marks ``forward_end`` and ``backward_end``, so that the trace cuts into the two
directions, and returns plain data: the output, the gradients that came back, and (for the
row-parallel layer) which autograd nodes handed the parameters their gradients. Ranks outside
the case's group take no part beyond the group's creation. PyTorch's DTensor plans run as a
cross-check outside the student block.
"""

from __future__ import annotations

import contextlib

import torch
import torch.distributed as dist

from graders.chapters.ch6 import graph
from graders.training.backward import backpropagate
from graders.training.owned import only_own_chunk
from graders.world.task import task
from graders.world.values import plain


def grad_of(tensor) -> object:
    """A copy of ``tensor``'s gradient, or None."""
    return None if tensor is None or tensor.grad is None else tensor.grad.detach().clone()


# -- the conjugate mappings ---------------------------------------------------------------------


def _run_mapping(ctx, case, name: str):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    x = case.inputs[i].clone().requires_grad_()
    with ctx.student_code() as student:
        ctx.hand_written()  # the import is not the mapping's work
        y = getattr(student, name)(x, group=group)
        ctx.mark("forward_end")
        skipped = backpropagate(y, case.grads[i])
        ctx.mark("backward_end")
    output = y.detach() if isinstance(y, torch.Tensor) else plain(y)
    # a conjugate is a Function: autograd records none of it, and it computes nothing but copies
    return {
        "output": output,
        "input_after": x.detach(),
        "grad": grad_of(x),
        "skipped": skipped,
        "hand_written": ctx.hand_written(),
    }


def _mapping_task(name: str):
    def run(ctx, case):
        return _run_mapping(ctx, case, name)

    run.__name__ = run.__qualname__ = name
    return task(f"ch6.{name}")(run)


copy_to_tp_region = _mapping_task("copy_to_tp_region")
reduce_from_tp_region = _mapping_task("reduce_from_tp_region")
scatter_to_tp_region = _mapping_task("scatter_to_tp_region")
gather_from_tp_region = _mapping_task("gather_from_tp_region")
scatter_to_sequence_region = _mapping_task("scatter_to_sequence_region")
gather_from_sequence_region = _mapping_task("gather_from_sequence_region")
reduce_scatter_to_sequence_region = _mapping_task("reduce_scatter_to_sequence_region")


# -- the linear layers ----------------------------------------------------------------------------


def linear_local(case, i: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Group rank ``i``'s input and output gradient, cut from the case's whole tensors."""
    n, x, g = case.n, case.x, case.grad
    if case.kind == "column":
        x = x.chunk(n, 0)[i] if case.sequence_parallel else x
        g = g if case.gather_output else g.chunk(n, -1)[i]
    else:
        x = x.chunk(n, -1)[i] if case.input_is_parallel else x
        g = g.chunk(n, 0)[i] if case.sequence_parallel else g
    return x.clone().contiguous(), g.clone().contiguous()


def _build_linear(student, case, group, i: int):
    """The student's layer, handed master tensors whose only real part is group rank ``i``'s
    shard (a column layer's output rows and bias, a row layer's input columns; its bias whole)."""
    flag = {"gather_output": case.gather_output} if case.kind == "column" else {}
    flag = flag or {"input_is_parallel": case.input_is_parallel}
    cls = student.ColumnParallelLinear if case.kind == "column" else student.RowParallelLinear
    split = 0 if case.kind == "column" else 1
    bias = None
    if case.bias:
        bias = only_own_chunk(case.bias_value, 0, i, case.n) if split == 0 else case.bias_value.clone()
    return cls(
        case.in_features,
        case.out_features,
        case.bias,
        group=group,
        master_weight=only_own_chunk(case.weight, split, i, case.n),
        master_bias=bias,
        sequence_parallel=case.sequence_parallel,
        **flag,
    )


def _run_linear(ctx, case, student, group, *, by_hand: bool = False) -> dict:
    """``by_hand``: also record how the row layer's gradients were made (``graph``)."""
    i = ctx.group_rank(case.group)
    x, g = linear_local(case, i)
    x.requires_grad_()
    layer = _build_linear(student, case, group, i)
    ctx.hand_written()  # the import and the construction are not the layer's work
    y = layer(x)
    ctx.mark("forward_end")
    weight, bias = getattr(layer, "weight", None), getattr(layer, "bias", None)
    tensors = {"weight": weight, "bias": bias, "input": x}
    nodes, watch = {}, contextlib.nullcontext()
    if isinstance(y, torch.Tensor):
        nodes = {**graph.gradient_sources(y, tensors), "paths": graph.path_kinds(y, tensors)}
        if by_hand:
            watch = graph.ReturnedGradients(y, {"weight": weight, "bias": bias})
    with watch:
        skipped = backpropagate(y, g)
    if isinstance(watch, graph.ReturnedGradients):
        nodes["returned"] = watch.verdicts({"weight": weight, "bias": bias})
        nodes["graph_in_backward"] = watch.graph_in_backward
    if by_hand:  # what autograd recorded and what the layer computed, at the dispatcher
        nodes["hand_written"] = ctx.hand_written()
    ctx.mark("backward_end")
    return {
        "output": y.detach() if isinstance(y, torch.Tensor) else plain(y),
        "input_grad": grad_of(x),
        "weight": plain(weight.detach()) if isinstance(weight, torch.Tensor) else plain(weight),
        "weight_grad": grad_of(weight) if isinstance(weight, torch.Tensor) else None,
        "bias_grad": grad_of(bias) if isinstance(bias, torch.Tensor) else None,
        "has_bias": isinstance(bias, torch.Tensor),
        "nodes": nodes,
        "skipped": skipped,
    }


def _linear(ctx, case, *, by_hand: bool = False):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    with ctx.student_code() as student:
        return _run_linear(ctx, case, student, group, by_hand=by_hand)


@task("ch6.column_parallel_linear")
def column_parallel_linear(ctx, case):
    return _linear(ctx, case)


@task("ch6.row_parallel_linear")
def row_parallel_linear(ctx, case):
    return _linear(ctx, case)


@task("ch6.row_parallel_linear")
def row_parallel_linear_by_hand(ctx, case):
    """The row layer, with a record of which nodes made its gradients and what its
    Function's backward returned."""
    return _linear(ctx, case, by_hand=True)


def _torch_plan(case):
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

    if case.kind == "column":
        return ColwiseParallel(output_layouts=Replicate() if case.gather_output else Shard(-1))
    return RowwiseParallel(input_layouts=Shard(-1) if case.input_is_parallel else Replicate())


def _run_torch_linear(ctx, case, group) -> dict:
    """The same layer as torch's DTensor plan on the same weights and inputs: local values."""
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor.parallel import parallelize_module

    dtype = case.weight.dtype
    linear = torch.nn.Linear(case.in_features, case.out_features, bias=case.bias, dtype=dtype)
    with torch.no_grad():
        linear.weight.copy_(case.weight)
        if case.bias:
            linear.bias.copy_(case.bias_value)
    mesh = DeviceMesh.from_group(group if group is not None else dist.group.WORLD, "cpu")
    parallelize_module(linear, mesh, _torch_plan(case))
    x, g = linear_local(case, ctx.group_rank(case.group))
    x.requires_grad_()
    y = linear(x)
    y.backward(g)
    local = [linear.weight.grad.to_local()]
    if case.bias:
        local.append(linear.bias.grad.full_tensor() if case.kind == "row" else linear.bias.grad.to_local())
    return {
        "output": y.detach().clone(),
        "input_grad": x.grad.detach().clone(),
        "weight": linear.weight.to_local().detach().clone(),
        "weight_grad": local[0].detach().clone(),
        "bias_grad": local[1].detach().clone() if case.bias else None,
    }


def _versus_torch(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    with ctx.student_code() as student:
        mine = _run_linear(ctx, case, student, group)
    return {"student": mine, "torch": _run_torch_linear(ctx, case, group)}


@task("ch6.column_parallel_linear")
def column_versus_torch(ctx, case):
    return _versus_torch(ctx, case)


@task("ch6.row_parallel_linear")
def row_versus_torch(ctx, case):
    return _versus_torch(ctx, case)


# -- the vocabulary-parallel layers ------------------------------------------------------------------


# -- the blocks -----------------------------------------------------------------------------------
