"""Chapter 8 judgements.

* Loss scaling, against ``torch.amp.GradScaler("cpu")`` run on the same steps: the scale after
  every ``update`` (scale), which steps were skipped and that a skipped step leaves the
  parameters alone (skip), and the gradients ``unscale_`` leaves and the parameters after every
  step taken (unscale).
* Accumulation: the parameters after every step and the returned losses (result), then exactly
  one all-reduce of the whole gradient per step, on the group (traffic).
* Checkpointing: values and gradients equal to the plain block with the same dropout masks
  (result); bytes saved for backward at most the input's, and fewer than the plain block's
  (memory); forward costs one forward, backward one backward plus one forward (recompute); the
  CPU generator left where the plain run leaves it (rng).
"""

from __future__ import annotations

import math

import torch

from graders.chapters.ch8 import reference
from graders.comm.assertions import fail as fail_with_trace
from graders.judge.checks import assert_number_close, assert_tensor_equal, fail
from graders.words.messages import say

#: several optimizer steps, and DDP's average in another order than the reference's
#: bytes born in a checkpointed forward that may still be alive when it returns, the output aside
KEPT_SLACK = 64
TRAINING_TOLERANCES = {torch.float32: (1e-4, 1e-5), torch.float64: (1e-9, 1e-11)}

# -- dynamic loss scaling ---------------------------------------------------------------------------


def _runs(run):
    """(the student's record, torch's record) of the steps."""
    return run[0]["student"], run[0]["torch"]


def assert_scale_trajectory(run, case) -> None:
    got, want = _runs(run)
    hint = say("ch8:scale:hint")
    for step in range(case.steps):
        scale_now = want["scales"][step - 1] if step else case.init_scale
        expected_scaled = got["losses"][step] * scale_now  # this run's own loss, at torch's scale
        what = say("ch8:scaled loss", step=step)
        assert_tensor_equal(
            got["scaled"][step], expected_scaled, what=what, case=case, hint=say("ch8:scale loss:hint")
        )
        scale, expected = got["scales"][step], want["scales"][step]
        if not isinstance(scale, int | float) or isinstance(scale, bool):
            fail(say("ch8:scale not a number", step=step, got=repr(scale)), case, hint)
        if not math.isclose(scale, expected, rel_tol=1e-6):
            trajectory = {"got": got["scales"][: step + 1], "expected": want["scales"][: step + 1]}
            fail(say("ch8:scale differs", step=step, **trajectory), case, hint)


def assert_skipped_steps(run, case) -> None:
    got, want = _runs(run)
    hint = say("ch8:skip:hint")
    expected = [not kind for kind in case.overflows]
    for step, stepped in enumerate(got["stepped"]):
        if stepped is not expected[step]:
            fail(say("ch8:stepped flag", step=step, got=repr(stepped), expected=expected[step]), case, hint)
        if not expected[step]:
            before = want["params"][step - 1] if step else None
            for j, param in enumerate(got["params"][step]):
                previous = got["params"][step - 1][j] if step else None
                if previous is not None and not torch.equal(param, previous):
                    fail(say("ch8:skipped step moved", step=step), case, hint)
                if before is not None and not torch.equal(want["params"][step][j], before[j]):
                    fail(say("ch8:torch disagrees", step=step), case)


def assert_unscaled(run, case) -> None:
    got, want = _runs(run)
    hint = say("ch8:unscale:hint")
    for step in range(case.steps):
        if case.explicit_unscale[step] and not case.overflows[step]:
            mine, theirs = got["unscaled"][step], want["unscaled"][step]
            for j, grad in enumerate(theirs):
                what = say("ch8:unscaled grad", step=step, j=j)
                assert_tensor_equal(_at(mine, j), grad, what=what, case=case, hint=hint)
        if case.explicit_unscale[step]:
            _assert_second_unscale_refused(got["again"][step], want["again"][step], step, case)
        for j, param in enumerate(want["params"][step]):
            what = say("ch8:param after step", step=step, j=j)
            assert_tensor_equal(got["params"][step][j], param, what=what, case=case, hint=hint)


def _assert_second_unscale_refused(mine, theirs, step: int, case) -> None:
    """A second ``unscale_()`` in one step raises what GradScaler raises and changes nothing."""
    mine = mine if isinstance(mine, dict) else {"raised": "", "same": False}
    said = {"step": step, "raised": mine.get("raised"), "expected": theirs["raised"]}
    if not mine.get("same"):
        fail(say("ch8:second unscale changed", **said), case, say("ch8:second unscale:hint"))
    if not mine.get("raised"):
        fail(say("ch8:second unscale silent", **said), case, say("ch8:second unscale:hint"))
    if mine["raised"] != theirs["raised"]:
        fail(say("ch8:second unscale", **said), case, say("ch8:second unscale:hint"))


def _at(values, j):
    return values[j] if isinstance(values, list) and j < len(values) else values


# -- gradient accumulation -------------------------------------------------------------------------


def assert_accumulated(run, case) -> None:
    want = reference.accumulation(case)
    hint = say("ch8:token weighted:hint") if _uneven(case) else say("ch8:accumulation:hint")
    for i, rank in enumerate(case.ranks):
        got = run[rank]
        for s in range(len(case.sizes)):
            for j, param in enumerate(want["params"][s]):
                what = say("ch8:rank param", rank=rank, step=s, j=j)
                assert_tensor_equal(
                    _at(got["params"][s], j),
                    param,
                    what=what,
                    case=case,
                    hint=hint,
                    tolerances=TRAINING_TOLERANCES,
                )
            what = say("ch8:rank loss", rank=rank, step=s)
            rtol = TRAINING_TOLERANCES[param.dtype][0]
            assert_number_close(
                got["losses"][s],
                want["losses"][i][s],
                what,
                case,
                say("ch8:loss:hint"),
                rel_tol=rtol,
                abs_tol=rtol,
            )


def _uneven(case) -> bool:
    return any(len(set(step)) > 1 for step in case.sizes)


def assert_one_all_reduce_per_step(run, case) -> None:
    """DDP's all-reduces (the comm hook's notes) and the student's own collectives (the trace):
    exactly one all-reduce of the whole gradient per optimizer step, on 2+ ranks."""
    assert_accumulated(run, case)
    size = torch.tensor([], dtype=getattr(torch, case.dtype)).element_size()
    nbytes = sum(p.numel() for p in reference.accumulation_model(case).parameters()) * size
    for rank in case.ranks:
        phases = run.traces.phase(rank, "step_end")
        for s, ddp_calls in enumerate(run[rank]["ddp_all_reduces"]):
            own = phases[s] if s < len(phases) else []
            if own or ddp_calls != [nbytes]:
                shown = [f"DDP all_reduce of {n} B" for n in ddp_calls] + [
                    f"{e.op} of {e.nbytes} B" for e in own
                ]
                said = {
                    "rank": rank,
                    "step": s,
                    "count": len(ddp_calls) + len(own),
                    "nbytes": nbytes,
                    "got": ", ".join(shown) or "none",
                }
                fail_with_trace(run.traces, say("ch8:one all-reduce", **said), case, say("ch8:no_sync:hint"))


# -- activation checkpointing ----------------------------------------------------------------------------


def _ran_backward(got, case) -> None:
    if got["skipped"]:
        fail(say("ch8:no backward", why=got["skipped"]), case, say("ch8:no backward:hint"))


def assert_checkpoint_values(run, case) -> dict:
    """Values and gradients; returns the plain run's measurements, for the checks after it."""
    got, want = run[0], reference.checkpointed(case)
    _ran_backward(got, case)
    hint = say("ch8:masks:hint") if case.dropout else say("ch8:checkpoint:hint")
    tolerances = TRAINING_TOLERANCES
    assert_tensor_equal(
        got["output"], want["output"], what=say("ch8:output"), case=case, hint=hint, tolerances=tolerances
    )
    assert_tensor_equal(
        got["input_grad"],
        want["input_grad"],
        what=say("ch8:input grad"),
        case=case,
        hint=hint,
        tolerances=tolerances,
    )
    for name, grad in want["param_grads"].items():
        mine = got["param_grads"].get(name)
        assert_tensor_equal(
            mine, grad, what=say("ch8:param grad", name=name), case=case, hint=hint, tolerances=tolerances
        )
    return want


def assert_checkpoint_memory(run, case) -> None:
    got, want = run[0], assert_checkpoint_values(run, case)
    saved, limit, plain = got["saved_bytes"], want["input_bytes"], want["saved_bytes"]
    if saved > limit or saved >= plain:
        fail(say("ch8:saved bytes", saved=saved, limit=limit, plain=plain), case, say("ch8:memory:hint"))
    kept = got["kept_bytes"]
    if kept > KEPT_SLACK:
        fail(say("ch8:kept bytes", kept=kept, plain=want["kept_bytes"]), case, say("ch8:memory:hint"))


def assert_recompute(run, case) -> None:
    got, want = run[0]["flops"], assert_checkpoint_values(run, case)["flops"]
    expected = {"forward": want["forward"], "backward": want["backward"] + want["forward"]}
    if got != expected:
        said = {
            "forward": got["forward"],
            "backward": got["backward"],
            **{f"want_{k}": v for k, v in expected.items()},
        }
        fail(say("ch8:recompute flops", **said), case, say("ch8:recompute:hint"))


def assert_generator_restored(run, case) -> None:
    got, want = run[0]["rng_probe"], assert_checkpoint_values(run, case)["rng_probe"]
    if not torch.equal(got, want):
        fail(say("ch8:rng moved"), case, say("ch8:rng:hint"))
