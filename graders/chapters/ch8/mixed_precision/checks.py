"""Chapter 8's mixed-precision judgements: the 16-bit parameters, the fp32 masters and the
losses after every step against the reference with the same casts (result); then what the
trainer keeps between steps, measured by the live ledger, between the parameters + masters +
AdamW's moments and that plus AdamW's step counts (memory)."""

from __future__ import annotations

import math

import torch

from graders.chapters.ch8.mixed_precision import reference
from graders.judge.checks import assert_tensor_equal, fail
from graders.words.messages import say

#: the masters after a few AdamW steps, in another order of float32 operations
MASTER_TOLERANCES = {torch.float32: (1e-5, 1e-6)}


def assert_trained(run, case) -> None:
    got, want = run[0], reference.trained(case)
    hint = say("ch8:masters:hint")
    for step in range(case.steps):
        loss = got["losses"][step]
        if not isinstance(loss, float) or not math.isclose(
            loss, want["losses"][step], rel_tol=1e-3, abs_tol=1e-6
        ):
            fail(say("ch8:mp loss", step=step, got=loss, expected=want["losses"][step]), case, hint)
        masters = got["masters"][step]
        if not isinstance(masters, list) or len(masters) != len(want["masters"][step]):
            fail(say("ch8:mp masters missing", got=repr(masters)[:80]), case, hint)
        for j, master in enumerate(want["masters"][step]):
            what = say("ch8:mp master", step=step, j=j)
            assert_tensor_equal(
                masters[j], master, what=what, case=case, hint=hint, tolerances=MASTER_TOLERANCES
            )
        for j, param in enumerate(want["params"][step]):
            what = say("ch8:mp param", step=step, j=j)
            assert_tensor_equal(
                got["params"][step][j], param, what=what, case=case, hint=say("ch8:cast back:hint")
            )


def assert_kept(run, case) -> None:
    assert_trained(run, case)
    least, most = reference.kept_limits(case)
    for step, kept in enumerate(run[0]["kept"]):
        if not least <= kept <= most:
            said = {"step": step, "kept": kept, "least": least, "most": most}
            fail(say("ch8:mp kept", **said), case, say("ch8:mp memory:hint"))
