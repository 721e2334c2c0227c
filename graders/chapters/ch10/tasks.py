"""Chapter 10 worker tasks: the router, the layer, expert parallelism and its gradients.

The layer tasks hand the student's ``MoELayer`` / ``ExpertParallelMoE`` the kit's own router
(:class:`~graders.chapters.ch10.reference.ReferenceRouter`), so that a bug in the router costs
the router's points only. The expert-parallel task marks ``forward_end`` and ``backward_end``;
with ``poisoned=True`` every expert this rank does not hold is filled with NaN before the
student's module is built from the layer, so an output that uses one is not finite.
"""

from __future__ import annotations

import torch
from torch import nn

from graders.chapters.ch10.reference import ReferenceRouter
from graders.training.backward import backpropagate
from graders.world.task import task
from graders.world.values import plain

ROUTING_FIELDS = ("dispatch", "combine", "experts", "aux_loss", "z_loss")
EXPERT_PARAMETERS = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


def _grads(output, inputs) -> tuple[list, str]:
    """The gradients of ``output`` with respect to ``inputs`` (None where unused), or Nones and why not."""
    if not isinstance(output, torch.Tensor):
        return [None] * len(inputs), "no tensor"
    if not output.requires_grad:
        return [None] * len(inputs), "no grad_fn"
    grads = torch.autograd.grad(output, inputs, allow_unused=True, retain_graph=True)
    return [None if g is None else g.detach().clone() for g in grads], ""


def _field(routing, name):
    value = getattr(routing, name, None)
    return value.detach().clone() if isinstance(value, torch.Tensor) else plain(value)


@task("ch10.capacity")
def capacity(ctx, case):
    with ctx.student_code() as student:
        return plain(student.capacity(case.tokens, case.num_experts, case.k, case.capacity_factor))


@task("ch10.top_k_router")
def top_k_router(ctx, case):
    x = case.x.clone().requires_grad_()
    with ctx.student_code() as student:
        router = student.TopKRouter(
            case.hidden,
            case.num_experts,
            case.k,
            case.capacity_factor,
            case.normalize,
            weight=case.weight.clone(),
        )
        routing = router(x)
        out = {name: _field(routing, name) for name in ROUTING_FIELDS}
        weight = router.weight
        combine = getattr(routing, "combine", None)
        weights = combine.sum(dim=-1) if isinstance(combine, torch.Tensor) and combine.dim() == 3 else combine
        loss = (weights * case.combine_grad).sum() if _shaped_like(weights, case.combine_grad) else None
        (out["weight_grad"], out["input_grad"]), out["no_grad"] = _grads(loss, (weight, x))
        a, b = case.loss_weights
        aux, z = getattr(routing, "aux_loss", None), getattr(routing, "z_loss", None)
        losses = a * aux + b * z if all(isinstance(t, torch.Tensor) for t in (aux, z)) else None
        (out["loss_weight_grad"],), out["no_loss_grad"] = _grads(losses, (weight,))
    return out


def _shaped_like(value, other: torch.Tensor) -> bool:
    return isinstance(value, torch.Tensor) and value.shape == other.shape and value.dtype == other.dtype


def _load_experts(layer, weights, *, keep=None) -> None:
    """Copy the case's expert weights into ``layer.experts``; experts not in ``keep`` get NaN."""
    with torch.no_grad():
        for e, values in enumerate(weights):
            for name, value in zip(EXPERT_PARAMETERS, values, strict=True):
                target = layer.experts[e].get_parameter(name)
                target.copy_(value if keep is None or e in keep else torch.full_like(value, float("nan")))


def _build_layer(student, case, num_experts: int, *, keep=None):
    layer = student.MoELayer(
        case.hidden, case.ffn_hidden, num_experts, case.k, case.capacity_factor, case.normalize
    )
    layer.router = ReferenceRouter(case.router, case.k, case.capacity_factor, case.normalize)
    layer = layer.to(case.router.dtype)
    _load_experts(layer, case.experts, keep=keep)
    return layer


def _expert_grads(experts) -> list:
    return [[plain(expert.get_parameter(name).grad) for name in EXPERT_PARAMETERS] for expert in experts]


def _output(returned):
    """The tensor of a layer's ``(output, routing)``, or what came back instead."""
    out = returned[0] if isinstance(returned, tuple) and returned else returned
    return out if isinstance(out, torch.Tensor) else None, plain(out)


@task("ch10.moe_layer")
def moe_layer(ctx, case):
    x = case.x.clone().requires_grad_()
    with ctx.student_code() as student:
        layer = _build_layer(student, case, case.num_experts)
        out, shown = _output(layer(x))
        skipped = backpropagate(out, case.grad)
    return {
        "output": out.detach() if out is not None else shown,
        "input_grad": plain(x.grad),
        "router_grad": plain(layer.router.weight.grad),
        "expert_grads": _expert_grads(layer.experts),
        "skipped": skipped,
    }


def _expert_parallel(ctx, case, *, poisoned: bool):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    per = case.experts_per_rank
    local = range(i * per, (i + 1) * per)
    x = case.xs[i].clone().requires_grad_()
    with ctx.student_code() as student:
        layer = _build_layer(student, case, case.num_experts, keep=set(local) if poisoned else None)
        moe = student.ExpertParallelMoE(layer, ep_group=group)
        out, shown = _output(moe(x))
        ctx.mark("forward_end")
        skipped = backpropagate(out, case.grads[i])
        ctx.mark("backward_end")
    experts = list(getattr(moe, "experts", []))
    router = getattr(moe, "router", None)
    return {
        "output": out.detach() if out is not None else shown,
        "input_grad": plain(x.grad),
        "router_grad": plain(router.weight.grad) if isinstance(router, ReferenceRouter) else None,
        "expert_grads": _expert_grads(experts) if len(experts) == per else None,
        "experts_held": len(experts),
        "parameters_held": sum(p.numel() for p in moe.parameters()) if isinstance(moe, nn.Module) else None,
        "skipped": skipped,
    }


@task("ch10.expert_parallel_moe")
def expert_parallel_moe(ctx, case):
    return _expert_parallel(ctx, case, poisoned=False)


@task("ch10.expert_parallel_moe")
def expert_parallel_moe_poisoned(ctx, case):
    """The same, with the experts of other ranks filled with NaN in the layer handed over."""
    return _expert_parallel(ctx, case, poisoned=True)


@task("ch10.expert_data_parallel_ranks")
def expert_data_parallel_ranks(ctx, case):
    with ctx.student_code() as student:
        try:
            return {"groups": plain(student.expert_data_parallel_ranks(case.world, case.ep, case.dp))}
        except ValueError as error:
            return {"value_error": str(error)}


class _Expert(nn.Module):
    def __init__(self, hidden: int, ffn: int, dtype):
        super().__init__()
        self.fc1 = nn.Linear(hidden, ffn, dtype=dtype)
        self.fc2 = nn.Linear(ffn, hidden, dtype=dtype)


class _ExpertParallelModel(nn.Module):
    """What one rank of an expert-parallel model holds: the router and its own experts."""

    def __init__(self, case, i: int):
        super().__init__()
        dtype = case.router_grads[i].dtype
        self.router = nn.Module()
        self.router.weight = nn.Parameter(torch.zeros(case.num_experts, case.hidden, dtype=dtype))
        self.experts = nn.ModuleList(
            _Expert(case.hidden, case.ffn_hidden, dtype) for _ in range(case.experts_per_rank)
        )
        self.router.weight.grad = case.router_grads[i].clone()
        for expert, grads in zip(self.experts, case.expert_grads[i], strict=True):
            for name, grad in zip(EXPERT_PARAMETERS, grads, strict=True):
                expert.get_parameter(name).grad = grad.clone()


@task("ch10.all_reduce_moe_gradients")
def all_reduce_moe_gradients(ctx, case):
    dense = ctx.group(case.group)
    expert_groups = [ctx.group(case.expert_group(e)) for e in range(case.ep)]
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    model = _ExpertParallelModel(case, i)
    with ctx.student_code() as student:
        student.all_reduce_moe_gradients(model, expert_group=expert_groups[i % case.ep], dense_group=dense)
        ctx.mark("sync_end")
    return {"router": plain(model.router.weight.grad), "experts": _expert_grads(model.experts)}
