"""Chapter 8's FP8 references, in the driver: the README's rules, written out once more.

Also the error bound of an FP8 product: each element of ``x`` comes back from FP8 within
``u · |x| + δ`` (``u`` half the format's relative spacing, ``δ`` half its smallest subnormal in
``x``'s units), so ``|x̂ ŵ − x w|`` is bounded term by term.
"""

from __future__ import annotations

import torch

DTYPES = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
MANTISSA_BITS = {"e4m3": 3, "e5m2": 2}
SMALLEST_SUBNORMAL = {"e4m3": 2.0**-9, "e5m2": 2.0**-16}


def largest(fmt: str) -> float:
    return float(torch.finfo(DTYPES[fmt]).max)


def finite_amax(x: torch.Tensor) -> torch.Tensor:
    magnitudes = x.float().abs().nan_to_num(nan=0.0, posinf=0.0)
    return magnitudes.max() if magnitudes.numel() else torch.tensor(0.0)


def scale_for(amax: torch.Tensor, fmt: str) -> torch.Tensor:
    if not bool(amax > 0):
        return torch.tensor(1.0)
    return torch.tensor(largest(fmt), dtype=torch.float32) / amax


def to_fp8(x: torch.Tensor, scale: torch.Tensor, fmt: str) -> torch.Tensor:
    top = largest(fmt)
    return torch.clamp(x.float() * scale, min=-top, max=top).to(DTYPES[fmt])


def quantized(x: torch.Tensor, fmt: str) -> tuple[torch.Tensor, torch.Tensor]:
    scale = scale_for(finite_amax(x), fmt)
    return to_fp8(x, scale, fmt), scale


def delayed(case) -> list[dict]:
    """Per step: the scale used, the FP8 tensor, and the scale for the next step."""
    scale, history, steps = torch.tensor(1.0), [], []
    for x in case.xs:
        q = to_fp8(x, scale, case.fmt)
        history = [*history, finite_amax(x)][-case.history_len :]
        used = scale
        peak = max(history, key=float)
        if float(peak) > 0:
            scale = torch.tensor(largest(case.fmt), dtype=torch.float32) / peak / 2.0**case.margin
        steps.append({"q": q, "scale": used, "next_scale": float(scale)})
    return steps


def fp8_product(case) -> dict:
    """The simulated product, its float32 tolerance, the fp32 product and the error bound."""
    qx, sx = quantized(case.x, case.fmt)
    qw, sw = quantized(case.weight, case.fmt)
    simulated = (qx.float() @ qw.float().t()) / (sx * sw)
    ax, aw = case.x.abs(), case.weight.abs()
    u = 2.0 ** -(MANTISSA_BITS[case.fmt] + 1)
    dx, dw = SMALLEST_SUBNORMAL[case.fmt] / 2 / sx, SMALLEST_SUBNORMAL[case.fmt] / 2 / sw
    magnitude = ax @ aw.t()
    bound = (u * ax + dx) @ ((1 + u) * aw + dw).t() + ax @ (u * aw + dw).t() + 1e-5 * magnitude
    return {
        "simulated": simulated,
        "tolerance": 1e-5 * (qx.float().abs() @ qw.float().abs().t()) / (sx * sw) + 1e-30,
        "exact": case.x @ case.weight.t(),
        "bound": bound,
    }
