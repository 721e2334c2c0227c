"""Comparing parameters after every training step with the driver's reference.

:func:`assert_history_close` compares a rank's parameters after every step with the reference,
with :data:`TRAINING_TOLERANCES`, and names the first step and parameter that went wrong.
Where two behaviours are legitimate (a flat, sharded buffer gives every element a gradient),
the grader passes the other history as ``also``.
"""

from __future__ import annotations

import torch

from graders.errors import GradingFailure
from graders.judge.checks import assert_tensor_equal, fail
from graders.words.messages import say

#: (rtol, atol) per dtype for parameters after a few optimizer steps. A parallel run sums the
#: gradient average in another order than one device; in float32 that moves parameters by a
#: few ulps per step, and Adam's normalisation can amplify it. Bugs move them by ~lr.
TRAINING_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-9, 1e-12),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-3),
    torch.bfloat16: (5e-2, 1e-2),
}


def assert_history_close(
    history,
    expected: list[dict[str, torch.Tensor]],
    *,
    who: str,
    case=None,
    hint: str = "",
    also: list[dict[str, torch.Tensor]] | None = None,
    first_step: int = 1,
) -> None:
    """``history[k][name]`` must match ``expected[k][name]`` for every step k and parameter.

    ``who`` names whose parameters these are ("rank 2", "torch DDP on rank 0"); the first
    step at which a parameter differs is the one reported. ``also`` is another acceptable
    history: a parameter passes if all its steps match ``expected`` or all match ``also``.
    ``first_step`` numbers the first entry in messages (3 when only the last of 3 is given).
    """
    steps = len(expected)
    if not isinstance(history, list) or len(history) != steps:
        fail(say("history:steps", who=who, steps=steps, history=history), case, hint)
    for k, got in enumerate(history):
        if not isinstance(got, dict):
            fail(say("history:named", who=who, step=first_step + k, got=got), case, hint)
        missing = sorted(set(expected[k]) - set(got))
        if missing:
            fail(say("history:missing", who=who, step=first_step + k, missing=", ".join(missing)), case, hint)
    for name in expected[0]:
        try:
            _assert_parameter_history(history, expected, name, who, case, hint, first_step)
        except GradingFailure:
            if also is None:
                raise
            try:
                _assert_parameter_history(history, also, name, who, case, hint, first_step)
            except GradingFailure:
                pass
            else:
                continue
            raise


def _assert_parameter_history(history, expected, name, who, case, hint, first_step) -> None:
    last = first_step + len(expected) - 1
    for k, (got, want) in enumerate(zip(history, expected, strict=True)):
        assert_tensor_equal(
            got[name],
            want[name],
            what=say("history:parameter", who=who, step=first_step + k, last=last, name=name),
            case=case,
            hint=hint,
            tolerances=TRAINING_TOLERANCES,
        )
