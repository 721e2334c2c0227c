"""Assertions that compare what came back from the workers with the driver's reference.

Every failure is a :class:`GradingFailure` whose message says what was expected, what was
seen, on which rank, for which example, and (when given) a hint tied to the lesson.

Tolerances (documented in docs/gpus.md): integer and bool dtypes compare exactly; floating
dtypes use ``|actual - expected| <= atol + rtol * |expected|`` with the values below. They
allow a different but valid order of floating-point operations, nothing more.
"""

from __future__ import annotations

import contextlib
import math

import torch

from graders.errors import GradingFailure
from graders.judge.figures import Picture, attach, attach_picture, figures_of
from graders.words.messages import say
from graders.words.text import Text

TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-9, 1e-12),
    torch.float32: (1e-5, 1e-6),
    torch.float16: (1e-3, 1e-4),
    torch.bfloat16: (1.6e-2, 1e-3),
}


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) for ``dtype``; (0, 0) for exact dtypes."""
    return TOLERANCES.get(dtype, (0.0, 0.0))


def fail(
    message: Text, case=None, hint: Text | str = "", *, picture: Picture | None = None, rank: object = ""
) -> None:
    """Fail the property with ``message`` (a :func:`graders.words.messages.say` Text), the example's
    one-line reproduction, ``picture``'s text (its PNG attached), ``hint`` and the ``rank`` it is
    about (by default, the one ``message`` was said with)."""
    example = repr(case) if case is not None else ""
    failure = GradingFailure(
        message, hint, example=example, picture=picture.text if picture else "", rank=rank
    )
    raise attach_picture(failure, picture) if picture is not None else failure


@contextlib.contextmanager
def showing(picture: Picture):
    """Re-raise a :class:`GradingFailure` from inside with ``picture``'s text below its own and its
    PNG attached (the figures the failure already had are kept)."""
    try:
        yield
    except GradingFailure as failure:
        shown = failure.picture + "\n" + picture.text if failure.picture else picture.text
        again = failure.again(picture=shown)
        for figure in figures_of(failure):
            attach(again, figure.name, figure.draw)
        raise attach_picture(again, picture) from None


def describe(value: object) -> Text | str:
    if isinstance(value, torch.Tensor):
        return say("describe:tensor", dtype=value.dtype, shape=tuple(value.shape))
    if value is None:
        return "None"
    if isinstance(value, str) and value.startswith("<"):
        return value  # already a description made in the worker
    return say("describe:object", type=type(value).__name__)


PREVIEW = 8  # values shown of expected and got


def preview_window(numel: int, at: int, limit: int = PREVIEW) -> tuple[int, int]:
    """The ``limit`` flat positions shown around position ``at``: [start, stop), ``at`` centred."""
    start = max(0, min(at - limit // 2, numel - limit))
    return start, min(numel, start + limit)


def _preview(tensor: torch.Tensor, window: tuple[int, int]) -> str:
    flat = tensor.flatten()
    start, stop = window
    items = ", ".join(f"{v:g}" if tensor.is_floating_point() else str(v) for v in flat[start:stop].tolist())
    return f"[{'… ' if start else ''}{items}{', …' if flat.numel() > stop else ''}]"


def _previews(expected: torch.Tensor, actual: torch.Tensor, at: int) -> Text:
    """expected and got around the first mismatch (flat position ``at``), "…" where values are left out."""
    window = preview_window(expected.numel(), at)
    where = ""
    if window != (0, expected.numel()):
        where = say("preview window", start=window[0], stop=window[1] - 1, numel=expected.numel(), at=at)
    return where + say("preview", expected=_preview(expected, window), got=_preview(actual, window))


def assert_tensor_equal(
    actual,
    expected: torch.Tensor,
    *,
    what: str,
    case=None,
    hint: str = "",
    tolerances: dict[torch.dtype, tuple[float, float]] | None = None,
) -> None:
    """``actual`` must be a tensor with ``expected``'s shape, dtype and values (within tolerance).

    ``tolerances`` replaces :data:`TOLERANCES` (per dtype ``(rtol, atol)``) where a computation
    legitimately drifts further, such as several optimizer steps.
    """
    if not isinstance(actual, torch.Tensor):
        fail(say("expected value", what=what, expected=describe(expected), got=describe(actual)), case, hint)
    if tuple(actual.shape) != tuple(expected.shape):
        shapes = {"expected": tuple(expected.shape), "got": tuple(actual.shape)}
        fail(say("expected shape", what=what, **shapes), case, hint)
    if actual.dtype != expected.dtype:
        fail(say("expected dtype", what=what, expected=expected.dtype, got=actual.dtype), case, hint)
    rtol, atol = (tolerances or TOLERANCES).get(expected.dtype, (0.0, 0.0))
    if expected.numel() == 0:
        return
    if rtol == 0 and atol == 0:
        bad = actual != expected
    else:
        a, e = actual.double(), expected.double()
        # equal values (an infinity of the same sign among them) and NaN where NaN is due are no
        # mismatch; an infinity is matched by itself alone (within rtol of inf, everything is)
        close = (a == e) | (torch.isfinite(e) & ((a - e).abs() <= atol + rtol * e.abs()))
        bad = ~(close | (torch.isnan(a) & torch.isnan(e)))
    if bool(bad.any()):
        index = tuple(int(i) for i in bad.nonzero()[0])
        at = int(bad.flatten().nonzero()[0])
        wrong = say(
            "wrong values",
            what=what,
            bad=int(bad.sum()),
            numel=expected.numel(),
            index=index,
            expected=expected[index].item(),
            got=actual[index].item(),
        )
        fail(wrong + "\n" + _previews(expected, actual, at), case, hint)


def assert_unchanged(before: torch.Tensor, after, *, what: str, case=None) -> None:
    """An input the contract says is not modified must come back as it went in."""
    if isinstance(after, torch.Tensor) and after.shape == before.shape and not torch.equal(after, before):
        fail(say("modified input", what=what), case, say("modified input:hint"))


def assert_number_close(
    actual, expected: float, what: str, case=None, hint: str = "", *, rel_tol=1e-9, abs_tol=1e-12
) -> None:
    """``actual`` must be a number (not a bool) within ``rel_tol`` / ``abs_tol`` of ``expected``."""
    if not isinstance(actual, int | float) or isinstance(actual, bool):
        fail(say("expected a number", what=what, got=actual), case, hint)
    if not math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=abs_tol):
        fail(say("expected value", what=what, expected=repr(expected), got=repr(actual)), case, hint)
