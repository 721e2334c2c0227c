"""Chapter 8: FP8, simulated: per-tensor scaling, delayed scaling, and an FP8 linear layer.

An FP8 number has 8 bits: ``e4m3`` (4 exponent bits, 3 mantissa bits, largest 448, no inf:
``torch.float8_e4m3fn``) for weights and activations, ``e5m2`` (largest 57344, with inf:
``torch.float8_e5m2``) for gradients. Its range is so narrow that every tensor is first
multiplied by a *scale* that puts its largest magnitude (its *amax*) at the format's largest
value.

Rules, the same everywhere below (all arithmetic in float32):

* ``amax`` is the largest ``|x|`` over the finite elements (NaN and ±inf are ignored);
* ``scale = fp8_max / amax`` (a float32 division); when ``amax`` is 0 (nothing finite and
  non-zero) the scale is 1;
* ``q = (x · scale)`` clamped to ``[-fp8_max, fp8_max]`` (*saturation*: ±inf and anything too
  large become ±fp8_max), then cast to the FP8 dtype; NaN stays NaN;
* the value ``q`` stands for is ``q.float() / scale``.

``DelayedScaling`` is Transformer Engine's recipe: the scale of a step comes from the amaxes
of *earlier* steps (the largest of the last ``history_len``), divided by ``2 ** margin`` for
headroom, so that no reduction over the current tensor is needed before casting it. Its first
scale is 1; after each ``quantize(x)`` the amax of ``x`` joins the history and the scale for
the next call is recomputed, unless the history's largest amax is 0 (the scale then stays).
"""

import torch

FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def fp8_max(fmt: str) -> float:
    return torch.finfo(FORMATS[fmt]).max


def amax(x: torch.Tensor) -> torch.Tensor:
    """The largest finite ``|x|``, a float32 scalar (0 for a tensor with none)."""
    ### BEGIN SOLUTION
    finite = x.float().abs()
    finite = torch.where(torch.isfinite(finite), finite, torch.zeros_like(finite))
    return finite.max() if finite.numel() else torch.zeros((), dtype=torch.float32)
    ### END SOLUTION


def cast_fp8(x: torch.Tensor, scale: torch.Tensor, fmt: str) -> torch.Tensor:
    """``x · scale``, saturated to the format's range, as FP8."""
    ### BEGIN SOLUTION
    top = fp8_max(fmt)
    return (x.float() * scale).clamp(-top, top).to(FORMATS[fmt])
    ### END SOLUTION


def quantize_fp8(x: torch.Tensor, fmt: str = "e4m3") -> tuple[torch.Tensor, torch.Tensor]:
    """``(q, scale)``: ``x`` in FP8 with its own per-tensor scale (a float32 scalar tensor)."""
    ### BEGIN SOLUTION
    top = amax(x)
    if top > 0:
        scale = torch.tensor(fp8_max(fmt), dtype=torch.float32) / top
    else:
        scale = torch.ones((), dtype=torch.float32)
    return cast_fp8(x, scale, fmt), scale
    ### END SOLUTION


class DelayedScaling:
    def __init__(self, history_len: int = 16, margin: int = 0, fmt: str = "e4m3"):
        self.history_len, self.margin, self.fmt = history_len, margin, fmt
        ### BEGIN SOLUTION
        self.history: list[torch.Tensor] = []
        self.scale = torch.ones((), dtype=torch.float32)
        ### END SOLUTION

    def get_scale(self) -> float:
        ### BEGIN SOLUTION
        return float(self.scale)
        ### END SOLUTION

    def quantize(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(q, scale)`` with the current scale; then ``x``'s amax updates the next one."""
        ### BEGIN SOLUTION
        scale = self.scale
        q = cast_fp8(x, scale, self.fmt)
        self.history = (self.history + [amax(x)])[-self.history_len :]
        top = torch.stack(self.history).max()
        if top > 0:
            self.scale = torch.tensor(fp8_max(self.fmt), dtype=torch.float32) / top / 2.0**self.margin
        return q, scale
        ### END SOLUTION


def fp8_linear(x: torch.Tensor, weight: torch.Tensor, fmt: str = "e4m3") -> torch.Tensor:
    """``x @ weight.T`` through FP8: both quantized with their own scales, multiplied in
    float32 as the FP8 values they stand for, and the product divided by both scales."""
    ### BEGIN SOLUTION
    qx, sx = quantize_fp8(x, fmt)
    qw, sw = quantize_fp8(weight, fmt)
    return (qx.float() @ qw.float().t()) / (sx * sw)
    ### END SOLUTION
