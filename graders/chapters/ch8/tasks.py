"""Chapter 8 worker tasks: loss scaling, gradient accumulation under DDP, checkpointing.

* The loss-scaling task runs the same steps twice: with ``torch.amp.GradScaler("cpu")`` (the
  cross-check, outside the student block) and with the student's scaler, on two copies of a
  tiny model; after each backward it writes the case's overflow into one gradient.
* The accumulation task wraps the kit's model in PyTorch's own ``DistributedDataParallel`` with
  one bucket and a comm hook that averages it and notes the bucket's bytes (DDP's all-reduces
  are the kit's, which the trace does not hold), and marks ``step_end`` after every optimizer
  step (the trace holds what the student's code sent itself).
* The checkpoint task runs ``checkpoint(block, x)`` under a saved-tensors hook (bytes saved in
  forward), the live ledger (bytes born in forward and still alive when it returned, the
  output aside: what a hook does not see, an attribute or a graph kept under hooks of one's
  own) and a FLOP counter (forward and backward apart), then draws from the CPU generator to
  see where backward left it.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from graders.chapters.ch8.measure import MatmulFlops, SavedBytes, kept_after_forward
from graders.chapters.ch8.mixed_precision.tasks import mixed_precision_trainer  # noqa: F401  (a task)
from graders.judge import strategies as S
from graders.training.backward import backpropagate
from graders.training.gpt import build_mlp
from graders.training.live_memory import LiveLedger
from graders.world.task import task
from graders.world.values import plain

OVERFLOW_VALUES = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}
RNG_PROBE = 4  # numbers drawn after backward: where the generator was left
RNG_BETWEEN = 3  # numbers drawn between forward and backward (the rest of a model's dropout)


# -- dynamic loss scaling ---------------------------------------------------------------------------


def scaler_model(case) -> nn.Module:
    generator = S.seeded_generator(case.seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.randn(param.shape, generator=generator) * 0.5)
    return model


def scaler_inputs(case) -> list[torch.Tensor]:
    generator = S.seeded_generator(case.seed + 1)
    return [torch.randn(5, 3, generator=generator) for _ in range(case.steps)]


def _overflow(model: nn.Module, step: int, kind: str) -> None:
    """Write ``kind`` into one element of one gradient (which, chosen by the step)."""
    if not kind:
        return
    params = [p for p in model.parameters() if p.grad is not None]
    grad = params[step % len(params)].grad.view(-1)
    grad[(3 * step) % grad.numel()] = OVERFLOW_VALUES[kind]


def run_scaler(case, scaler, model: nn.Module) -> dict:
    """The case's steps with ``scaler``: per step the scaled loss, the gradients ``unscale_``
    left (when the step calls it), whether it stepped, the scale after ``update`` and the
    parameters after the step."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    record = {
        "losses": [],
        "scaled": [],
        "unscaled": [],
        "again": [],
        "stepped": [],
        "scales": [],
        "params": [],
    }
    for step, x in enumerate(scaler_inputs(case)):
        loss = model(x).pow(2).mean()
        scaled = scaler.scale(loss)
        record["losses"].append(loss.detach().clone())
        record["scaled"].append(
            scaled.detach().clone() if isinstance(scaled, torch.Tensor) else plain(scaled)
        )
        scaled.backward()
        _overflow(model, step, case.overflows[step])
        unscaled, again = None, None
        if case.explicit_unscale[step]:
            scaler.unscale_(optimizer)
            unscaled = [p.grad.detach().clone() for p in model.parameters()]
            again = _unscale_again(scaler, optimizer, model, unscaled)
        record["unscaled"].append(unscaled)
        record["again"].append(again)
        record["stepped"].append(plain(scaler.step(optimizer)))
        scaler.update()
        record["scales"].append(plain(scaler.get_scale()))
        record["params"].append([p.detach().clone() for p in model.parameters()])
        optimizer.zero_grad()
    return record


def _unscale_again(scaler, optimizer, model: nn.Module, unscaled: list) -> dict:
    """A second ``unscale_`` in the same step: what it raised, and whether it left the gradients
    as the first one did (GradScaler raises ``RuntimeError`` and changes nothing)."""
    try:
        scaler.unscale_(optimizer)
        raised = ""
    except Exception as exc:  # the kit's probe: any exception is an answer to record
        raised = type(exc).__name__
    same = all(_same(p.grad, g) for p, g in zip(model.parameters(), unscaled, strict=True))
    return {"raised": raised, "same": same}


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal element by element, NaN where NaN (an overflowing step's gradient holds one)."""
    return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all())


def _torch_scaler(case):
    return torch.amp.GradScaler(
        "cpu",
        init_scale=case.init_scale,
        growth_factor=case.growth_factor,
        backoff_factor=case.backoff_factor,
        growth_interval=case.growth_interval,
    )


@task("ch8.dynamic_loss_scaler")
def dynamic_loss_scaler(ctx, case):
    torch_run = run_scaler(case, _torch_scaler(case), scaler_model(case))
    model = scaler_model(case)
    with ctx.student_code() as student:
        scaler = student.DynamicLossScaler(
            case.init_scale, case.growth_factor, case.backoff_factor, case.growth_interval
        )
        mine = run_scaler(case, scaler, model)
    return {"student": mine, "torch": torch_run}


# -- gradient accumulation -------------------------------------------------------------------------


def accumulation_model(case) -> nn.Module:
    generator = S.seeded_generator(case.seed + 7)
    model = nn.Sequential(nn.Linear(case.features, 4), nn.Tanh(), nn.Linear(4, 1)).to(S.dtype_of(case.dtype))
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.randn(param.shape, generator=generator, dtype=torch.float64) * 0.5)
    return model


def token_losses(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """One loss per row: the squared error summed over the row."""
    return (output - target).pow(2).sum(dim=-1)


def accumulation_optimizer(params):
    return torch.optim.SGD(params, lr=0.1, momentum=0.9)


def _averaging_hook(state, bucket):
    """DDP's averaging all-reduce of one bucket, noted in ``state``'s list (kit calls are not traced)."""
    group, calls = state
    buffer = bucket.buffer()
    calls.append(buffer.numel() * buffer.element_size())
    buffer.div_(dist.get_world_size(group))
    work = dist.all_reduce(buffer, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


@task("ch8.accumulation_step")
def accumulation_step(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    i = ctx.group_rank(case.group)
    model = accumulation_model(case)
    ddp = DistributedDataParallel(model, process_group=group, bucket_cap_mb=256, broadcast_buffers=False)
    calls: list[int] = []
    ddp.register_comm_hook((group, calls), _averaging_hook)
    optimizer = accumulation_optimizer(ddp.parameters())
    losses, params, all_reduces = [], [], []
    with ctx.student_code() as student:
        for step in case.batches[i]:
            microbatches = [(x.clone(), y.clone()) for x, y in step]
            losses.append(plain(student.accumulation_step(ddp, optimizer, microbatches, token_losses)))
            ctx.mark("step_end")
            params.append([p.detach().clone() for p in model.parameters()])
            all_reduces.append(list(calls))
            calls.clear()
    return {"losses": losses, "params": params, "ddp_all_reduces": all_reduces}


# -- activation checkpointing ----------------------------------------------------------------------------


def checkpoint_block(case):
    return build_mlp(
        case.hidden, case.ffn_hidden, seed=case.seed, dtype=S.dtype_of(case.dtype), dropout=case.dropout
    )


@task("ch8.checkpoint")
def checkpoint(ctx, case):
    block = checkpoint_block(case)
    x = case.x.clone().requires_grad_()
    torch.manual_seed(case.seed)
    saved, forward_flops, backward_flops = SavedBytes(), MatmulFlops(), MatmulFlops()
    ledger = LiveLedger(ctx.location.chapter_dir, python_heap=("forward",))
    with ledger, ctx.student_code() as student:
        ledger.enter("forward")
        with ledger.paused():
            rng_state = torch.get_rng_state()  # what the checkpoint keeps to repeat its randomness
        with saved, forward_flops:
            out = student.checkpoint(block, x)
        ledger.enter("between")
        with ledger.paused():
            kept = kept_after_forward(ledger, out, rng_state)
        ctx.mark("forward_end")
        torch.rand(RNG_BETWEEN)
        with backward_flops:
            skipped = backpropagate(out, case.grad)
        ctx.mark("backward_end")
    probe = torch.rand(RNG_PROBE, dtype=torch.float64)
    return {
        "output": out.detach().clone() if isinstance(out, torch.Tensor) else plain(out),
        "input_grad": plain(x.grad),
        "param_grads": {name: plain(p.grad) for name, p in block.named_parameters()},
        "saved_bytes": saved.nbytes,
        "kept_bytes": kept,
        "flops": {"forward": forward_flops.total, "backward": backward_flops.total},
        "rng_probe": probe,
        "skipped": skipped,
    }


# -- FP8 ----------------------------------------------------------------------------------------


@task("ch8.quantize_fp8")
def quantize_fp8(ctx, case):
    with ctx.student_code() as student:
        return plain(student.quantize_fp8(case.x.clone(), case.fmt))


@task("ch8.delayed_scaling")
def delayed_scaling(ctx, case):
    steps = []
    with ctx.student_code() as student:
        recipe = student.DelayedScaling(case.history_len, case.margin, case.fmt)
        for x in case.xs:
            returned = plain(recipe.quantize(x.clone()))
            steps.append({"returned": returned, "next_scale": plain(recipe.get_scale())})
    return steps


@task("ch8.fp8_linear")
def fp8_linear(ctx, case):
    with ctx.student_code() as student:
        return plain(student.fp8_linear(case.x.clone(), case.weight.clone(), case.fmt))
