"""Chapter 8's mixed-precision task: the student's trainer for a few steps, under the live ledger.

The model starts in float32 (built before the ledger, so only what the trainer makes counts);
between steps the ledger's total is what the trainer keeps: the 16-bit parameters, the fp32
masters, the optimizer's state, and whatever else it holds on to. fp16 cases hand the trainer
torch's own ``GradScaler("cpu")`` as its loss scaler.
"""

from __future__ import annotations

import torch
from torch import nn

from graders.judge import strategies as S
from graders.training.live_memory import LiveLedger
from graders.world.task import task
from graders.world.values import plain

HPARAMS = {"lr": 1e-2, "weight_decay": 0.01}


def precision_model(case) -> nn.Module:
    generator = S.seeded_generator(case.seed)
    model = nn.Sequential(nn.Linear(case.features, case.hidden), nn.Tanh(), nn.Linear(case.hidden, 1))
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.randn(param.shape, generator=generator) * 0.5)
    return model


def precision_scaler(case):
    if case.dtype != "float16":
        return None
    return torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)


def mse(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return (output - target).pow(2).mean()


@task("ch8.mixed_precision_trainer")
def mixed_precision_trainer(ctx, case):
    model = precision_model(case)
    scaler = precision_scaler(case)
    ledger = LiveLedger(ctx.location.chapter_dir, python_heap="steady")
    params, masters, losses, kept = [], [], [], []
    with ledger, ctx.student_code() as student:
        ledger.enter("setup")
        trainer = student.MixedPrecisionTrainer(
            model, torch.optim.AdamW, dtype=S.dtype_of(case.dtype), loss_scaler=scaler, **HPARAMS
        )
        for step, (x, y) in enumerate(case.batches):
            ledger.enter("step", step=step)
            losses.append(plain(trainer.step(x.clone(), y.clone(), mse)))
            with ledger.paused():
                kept.append(ledger.total)
                params.append([p.detach().clone() for p in model.parameters()])
                held = getattr(trainer, "masters", None)
                masters.append(
                    plain([m.detach().clone() for m in held]) if isinstance(held, list) else plain(held)
                )
    return {"losses": losses, "params": params, "masters": masters, "kept": kept}
