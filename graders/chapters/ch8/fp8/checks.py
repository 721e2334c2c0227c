"""Chapter 8's FP8 judgements: the FP8 tensors element by element (NaN where NaN is due), the
scales exactly (float32), and the simulated linear layer against the simulation and within the
error bound of the fp32 product."""

from __future__ import annotations

import math

import torch

from graders.chapters.ch8.fp8 import reference
from graders.judge.checks import describe, fail
from graders.words.messages import say


def _pair(returned, case, what):
    if not (
        isinstance(returned, list)
        and len(returned) == 2
        and all(isinstance(t, torch.Tensor) for t in returned)
    ):
        fail(
            say(
                "ch8:fp8 pair",
                what=what,
                got=describe(returned) if not isinstance(returned, list) else len(returned),
            ),
            case,
            say("ch8:fp8 pair:hint"),
        )
    return returned


def assert_fp8_equal(got: torch.Tensor, want: torch.Tensor, what, case, hint) -> None:
    if got.dtype != want.dtype or tuple(got.shape) != tuple(want.shape):
        said = {
            "what": what,
            "dtype": got.dtype,
            "shape": tuple(got.shape),
            "want_dtype": want.dtype,
            "want_shape": tuple(want.shape),
        }
        fail(say("ch8:fp8 kind", **said), case, hint)
    a, e = got.float(), want.float()
    bad = (a != e) & ~(torch.isnan(a) & torch.isnan(e))
    if bool(bad.any()):
        index = tuple(int(i) for i in bad.nonzero()[0])
        said = {
            "what": what,
            "bad": int(bad.sum()),
            "numel": e.numel(),
            "index": index,
            "expected": e[index].item(),
            "got": a[index].item(),
        }
        fail(say("ch8:fp8 values", **said), case, hint)


def assert_scale_equal(got: torch.Tensor, want: torch.Tensor, what, case, hint) -> None:
    if got.numel() != 1 or not math.isclose(float(got), float(want), rel_tol=1e-6):
        fail(
            say(
                "ch8:fp8 scale",
                what=what,
                got=describe(got) if got.numel() != 1 else float(got),
                expected=float(want),
            ),
            case,
            hint,
        )


def _rules_hint(case):
    if case.special == "zeros":
        return say("ch8:zero amax:hint")
    if case.special in ("inf", "mixed"):
        return say("ch8:saturate:hint")
    if case.special == "nan":
        return say("ch8:nan:hint")
    return say("ch8:quantize:hint")


def assert_quantized(run, case) -> None:
    q, scale = _pair(run[0], case, "quantize_fp8")
    want_q, want_scale = reference.quantized(case.x, case.fmt)
    hint = _rules_hint(case)
    assert_scale_equal(scale, want_scale, say("ch8:the scale"), case, hint)
    assert_fp8_equal(q, want_q, say("ch8:the fp8 tensor"), case, hint)


def assert_delayed(run, case) -> None:
    want = reference.delayed(case)
    hint = say("ch8:delayed:hint")
    for step, (got, expected) in enumerate(zip(run[0], want, strict=True)):
        q, scale = _pair(got["returned"], case, "DelayedScaling.quantize")
        assert_scale_equal(scale, expected["scale"], say("ch8:delayed scale", step=step), case, hint)
        assert_fp8_equal(q, expected["q"], say("ch8:delayed fp8", step=step), case, say("ch8:saturate:hint"))
        following = got["next_scale"]
        if not isinstance(following, float) or not math.isclose(
            following, expected["next_scale"], rel_tol=1e-6
        ):
            said = {"step": step, "got": following, "expected": expected["next_scale"]}
            fail(say("ch8:next scale", **said), case, hint)


def assert_fp8_linear(run, case) -> None:
    want = reference.fp8_product(case)
    y = run[0]
    hint = say("ch8:fp8 linear:hint")
    expected = want["simulated"]
    if not isinstance(y, torch.Tensor) or tuple(y.shape) != tuple(expected.shape) or y.dtype != torch.float32:
        fail(say("ch8:fp8 linear kind", got=describe(y), shape=tuple(expected.shape)), case, hint)
    off = (y - expected).abs() > want["tolerance"]
    if bool(off.any()):
        index = tuple(int(i) for i in off.nonzero()[0])
        said = {"index": index, "got": y[index].item(), "expected": expected[index].item()}
        fail(say("ch8:fp8 linear values", **said), case, hint)
    beyond = (y - want["exact"]).abs() > want["bound"]
    if bool(beyond.any()):
        index = tuple(int(i) for i in beyond.nonzero()[0])
        said = {
            "index": index,
            "got": y[index].item(),
            "exact": want["exact"][index].item(),
            "bound": want["bound"][index].item(),
        }
        fail(say("ch8:fp8 linear bound", **said), case, hint)
