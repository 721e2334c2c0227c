"""Chapter 5 worker tasks: train the tiny LM with the student's ZeRO stage on every group rank.

Each training task runs ``steps`` steps inside one ``student_code`` block (hooks fire during
backward, so backward is student code too) and marks the phases of every step in the trace:
``forward_end``, ``backward_end``, ``step_end`` (and ``constructed`` after construction,
``reported`` after ZeRO-3 gathered its parameters for the grader). It measures what the rank
holds at the points where each stage makes its promise and returns plain data only.
PyTorch's ``ZeroRedundancyOptimizer`` runs for the cross-check outside the student block.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

from graders.training import data_parallel_steps, trainable
from graders.training import optimizer_log as probes
from graders.training.ledger import reachable_tensors, storage_bytes
from graders.training.models import build_model, make_batches, named_parameters
from graders.world.task import task
from graders.world.values import plain


def _train(ctx, case, wrapper, **loop):
    """``case.steps`` steps of ``wrapper`` on this group rank's share of the global batches."""
    batches = make_batches(case.data_seed, case.steps, case.rows * case.n)
    shard = ctx.group_rank(case.group)
    return data_parallel_steps(wrapper, batches, shard=shard, n=case.n, mark=ctx.mark, **loop)


def _train_with_optimizer(ctx, case, construct, *, measure: bool = False):
    """Train with ``construct(student, model, optimizer_cls, group)``, a student optimizer;
    ``measure`` also walks the optimizer for the gradient memory it holds after backward."""
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    model = build_model(case.seed)
    optimizer_cls, log = probes.recording(case.optimizer.optimizer_cls)
    held = {"grads_after_backward": 0, "gradient_memory_after_backward": 0}

    def after_backward():
        held["grads_after_backward"] = max(
            held["grads_after_backward"], probes.grad_bytes(model.parameters())
        )
        if measure:
            now = probes.gradient_memory(optimizer, model.parameters(), log)
            held["gradient_memory_after_backward"] = max(held["gradient_memory_after_backward"], now)

    with ctx.student_code() as student:
        optimizer = construct(student, model, optimizer_cls, group)
        ctx.mark("constructed")
        history = _train(
            ctx,
            case,
            model,
            snapshot=lambda: named_parameters(model),
            optimizer=optimizer,
            zero_grad=optimizer.zero_grad,
            after_backward=after_backward,
        )
    memory = {"params": probes.param_bytes(model.parameters()), **held}
    return {"history": history, "memory": memory | log.summary()}


def _zero1(student, model, optimizer_cls, group, case):
    return student.Zero1Optimizer(model.parameters(), optimizer_cls, group=group, **case.optimizer.hparams)


@task("ch5.zero1")
def zero1_train(ctx, case):
    return _train_with_optimizer(ctx, case, lambda *a: _zero1(*a, case))


@task("ch5.zero1")
def zero1_against_torch(ctx, case):
    """The student's ZeRO-1, then torch's ZeroRedundancyOptimizer on the same data and ranks."""
    from torch.distributed.optim import ZeroRedundancyOptimizer  # preloaded by the workers

    result = _train_with_optimizer(ctx, case, lambda *a: _zero1(*a, case))
    if result is None:
        return None
    group = ctx.group(case.group)
    model = build_model(case.seed)
    optimizer = ZeroRedundancyOptimizer(
        model.parameters(),
        optimizer_class=case.optimizer.optimizer_cls,
        process_group=group,
        **case.optimizer.hparams,
    )

    def average_gradients():
        for p in trainable(model):
            if p.grad is not None:
                dist.all_reduce(p.grad, group=group)
                p.grad.div_(case.n)

    history = _train(
        ctx,
        case,
        model,
        snapshot=lambda: named_parameters(model),
        optimizer=optimizer,
        zero_grad=lambda: optimizer.zero_grad(set_to_none=True),
        after_backward=average_gradients,
    )
    state = [v for s in optimizer.optim.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    result["torch"] = {"history": history, "state_bytes": storage_bytes(state)}
    return result


def _zero2(student, model, optimizer_cls, group, case):
    return student.Zero2Optimizer(
        model.parameters(),
        optimizer_cls,
        group=group,
        bucket_cap_mb=case.bucket_cap_mb,
        **case.optimizer.hparams,
    )


@task("ch5.zero2")
def zero2_train(ctx, case):
    return _train_with_optimizer(ctx, case, lambda *a: _zero2(*a, case))


@task("ch5.zero2")
def zero2_measured(ctx, case):
    """As zero2_train, and the gradient memory the optimizer holds when backward ends."""
    return _train_with_optimizer(ctx, case, lambda *a: _zero2(*a, case), measure=True)


def _train_zero3(ctx, case, *, measure: bool):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    model = build_model(case.seed)
    memory = {"params_at_forward_end": 0, "grads_after_backward": 0, "params_at_rest": 0}

    def hold(key, grads=False):
        if measure:
            tensors, found = reachable_tensors(wrapped)
            memory[key] = max(memory[key], storage_bytes(found if grads else tensors))

    with ctx.student_code() as student:
        wrapped = student.Zero3Module(model, group=group)
        ctx.mark("constructed")
        shards = list(wrapped.parameters())
        if not shards:
            raise ValueError("Zero3Module.parameters() is empty: it must yield this rank's shards")
        optimizer = case.optimizer.build(shards)
        _train(
            ctx,
            case,
            wrapped,
            snapshot=lambda: hold("params_at_rest"),
            optimizer=optimizer,
            zero_grad=lambda: optimizer.zero_grad(set_to_none=True),
            after_forward=lambda: hold("params_at_forward_end"),
            after_backward=lambda: hold("grads_after_backward", grads=True),
        )
        history = [plain(wrapped.full_parameters())]  # after the last step only: 1/4 of the traffic
        ctx.mark("reported")
    state = [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    memory["state_bytes"] = storage_bytes(state)
    return {"history": history, "memory": memory}


@task("ch5.zero3")
def zero3_train(ctx, case):
    return _train_zero3(ctx, case, measure=False)


@task("ch5.zero3")
def zero3_measured(ctx, case):
    """As zero3_train, and what the rank holds when forward ends, after backward, between steps."""
    return _train_zero3(ctx, case, measure=True)


@task("ch5.offload")
def offload_train(ctx, case):
    model = build_model(case.seed, dtype=torch.bfloat16)
    params = trainable(model)
    addresses = [p.untyped_storage().data_ptr() for p in params]
    optimizer_cls, log = probes.recording(case.optimizer.optimizer_cls)

    def snapshot():
        return named_parameters(model), [p.detach().clone() for p in log.owned()]

    with ctx.student_code() as student:
        optimizer = student.OffloadOptimizer(
            model.parameters(), optimizer_cls, host="cpu", **case.optimizer.hparams
        )
        steps = _train(
            ctx, case, model, snapshot=snapshot, optimizer=optimizer, zero_grad=optimizer.zero_grad
        )
    model_addresses = set(addresses)
    placement = {
        "instances": len(log.instances),
        "inner_steps": log.steps,
        "masters": [
            {
                "dtype": str(p.dtype).removeprefix("torch."),
                "device": p.device.type,
                "shape": list(p.shape),
                "shares_model_memory": p.untyped_storage().data_ptr() in model_addresses,
            }
            for p in log.owned()
        ],
        "state": [
            {"dtype": str(t.dtype).removeprefix("torch."), "device": t.device.type}
            for t in log.state_tensors()
            if t.dim() > 0
        ],
        "model_dtypes": [str(p.dtype).removeprefix("torch.") for p in params],
        "model_in_place": [
            p.untyped_storage().data_ptr() == a for p, a in zip(params, addresses, strict=True)
        ],
    }
    history = [named for named, _ in steps]
    masters = [owned for _, owned in steps]
    return {"history": history, "masters": masters, "placement": placement}


# -- cost model --------------------------------------------------------------------------------


def _ask(ctx, fn_name, *args, **kwargs):
    with ctx.student_code() as student:
        try:
            return {"value": plain(getattr(student, fn_name)(*args, **kwargs))}
        except ValueError:
            return {"raised": "ValueError"}


@task("ch5.zero_memory_per_gpu")
def zero_memory_per_gpu(ctx, case):
    return _ask(ctx, "zero_memory_per_gpu", case.stage, case.n_params, case.world, k=case.k)


@task("ch5.zero_comm_volume")
def zero_comm_volume(ctx, case):
    return _ask(ctx, "zero_comm_volume", case.stage, case.n_params, case.world)
