# Generated from solutions/ch8/fp8.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
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
    raise NotImplementedError("[dtlab TODO] ch8/fp8.py: implement amax")


def cast_fp8(x: torch.Tensor, scale: torch.Tensor, fmt: str) -> torch.Tensor:
    """``x · scale``, saturated to the format's range, as FP8."""
    raise NotImplementedError("[dtlab TODO] ch8/fp8.py: implement cast_fp8")


def quantize_fp8(x: torch.Tensor, fmt: str = "e4m3") -> tuple[torch.Tensor, torch.Tensor]:
    """``(q, scale)``: ``x`` in FP8 with its own per-tensor scale (a float32 scalar tensor)."""
    raise NotImplementedError("[dtlab TODO] ch8/fp8.py: implement quantize_fp8")


class DelayedScaling:
    def __init__(self, history_len: int = 16, margin: int = 0, fmt: str = "e4m3"):
        self.history_len, self.margin, self.fmt = history_len, margin, fmt
        raise NotImplementedError("[dtlab TODO] ch8/fp8.py: implement DelayedScaling.__init__")

    def get_scale(self) -> float:
        raise NotImplementedError("[dtlab TODO] ch8/fp8.py: implement DelayedScaling.get_scale")

    def quantize(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(q, scale)`` with the current scale; then ``x``'s amax updates the next one."""
        raise NotImplementedError("[dtlab TODO] ch8/fp8.py: implement DelayedScaling.quantize")


def fp8_linear(x: torch.Tensor, weight: torch.Tensor, fmt: str = "e4m3") -> torch.Tensor:
    """``x @ weight.T`` through FP8: both quantized with their own scales, multiplied in
    float32 as the FP8 values they stand for, and the product divided by both scales."""
    raise NotImplementedError("[dtlab TODO] ch8/fp8.py: implement fp8_linear")
