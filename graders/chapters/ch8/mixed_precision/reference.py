"""Chapter 8's mixed-precision reference, in the driver: the same casts, written out.

The 16-bit model computes forward and backward; its gradients, cast to float32, step fp32
masters with ``torch.optim.AdamW`` (through torch's ``GradScaler`` in fp16); the masters, cast
back, become the parameters. Also what a trainer may keep between steps, per parameter element:
the 16-bit parameter, its fp32 master and AdamW's two fp32 moments.
"""

from __future__ import annotations

import torch

from graders.chapters.ch8.mixed_precision.tasks import HPARAMS, mse, precision_model, precision_scaler
from graders.judge import strategies as S

#: bytes per parameter element between steps, besides the 16-bit parameter: master, exp_avg, exp_avg_sq
FP32_COPIES = 3


def trained(case) -> dict:
    dtype = S.dtype_of(case.dtype)
    model = precision_model(case)
    masters = [p.detach().to(torch.float32).clone().requires_grad_() for p in model.parameters()]
    model = model.to(dtype)
    scaler = precision_scaler(case)
    optimizer = torch.optim.AdamW(masters, **HPARAMS)
    params, master_values, losses = [], [], []
    for x, y in case.batches:
        loss = mse(model(x.to(dtype)), y.to(dtype)).float()
        (scaler.scale(loss) if scaler is not None else loss).backward()
        for master, param in zip(masters, model.parameters(), strict=True):
            master.grad, param.grad = param.grad.float(), None
        if scaler is None:
            optimizer.step()
        else:
            scaler.step(optimizer)
            scaler.update()
        optimizer.zero_grad(set_to_none=True)
        with torch.no_grad():
            for master, param in zip(masters, model.parameters(), strict=True):
                param.copy_(master.to(dtype))
        losses.append(loss.item())
        params.append([p.detach().clone() for p in model.parameters()])
        master_values.append([m.detach().clone() for m in masters])
    return {"params": params, "masters": master_values, "losses": losses}


def kept_limits(case) -> tuple[int, int]:
    """(at least, at most) bytes kept between steps: the parameters, masters and moments, and
    at most 16 bytes more per parameter tensor (AdamW's step counts) and 256 for a scaler."""
    model = precision_model(case)
    elements = sum(p.numel() for p in model.parameters())
    tensors = len(list(model.parameters()))
    itemsize = torch.tensor([], dtype=S.dtype_of(case.dtype)).element_size()
    least = elements * (itemsize + 4 * FP32_COPIES)
    return least, least + 16 * tensors + 256
