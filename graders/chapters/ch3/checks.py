"""Chapter 3 judgements.

* An optimizer: the parameters after every step equal ``torch.optim``'s on the same parameters
  and gradients (Lion: the driver's written-out reference) (result); what is left alive that was
  born while it was built or stepped is its per-element state, each parameter that had a
  gradient keeping as many tensors of its size as the optimizer's update needs, and nothing more
  than its step counters besides (state, judged on memory alone: a value bug is result's).
* ``optimizer_state_bytes`` and ``bytes_per_param``: equal to what a real optimizer, and a real
  training step, were measured to keep.
"""

from __future__ import annotations

from graders.chapters.ch3 import reference
from graders.judge.checks import assert_tensor_equal, fail
from graders.training.history import TRAINING_TOLERANCES
from graders.words.messages import say

#: bytes a step counter may take per parameter beside the per-element state (an int64 tensor)
COUNTER_BYTES = 8


def _late_starter(case) -> bool:
    """Whether some parameter has no gradient at a step before one it has (its step count then
    differs from the optimizer's)."""
    for j in range(len(case.shapes)):
        seen_gap = False
        for step in case.grads:
            if not step[j]:
                seen_gap = True
            elif seen_gap:
                return True
    return False


def _hint(case):
    if _late_starter(case) and case.optimizer in ("adam", "adamw", "adagrad"):
        return say("ch3:own step:hint")
    if any(not has for step in case.grads for has in step):
        return say("ch3:skip none:hint")
    if len(case.groups) > 1:
        return say("ch3:groups:hint")
    return say(f"ch3:{case.optimizer}:hint")


def assert_optimizer_result(run, case) -> None:
    got = run[0]
    expected = got["torch"] if got["torch"] is not None else reference.lion_history(case)
    history = got["history"]
    hint = _hint(case)
    for s, params in enumerate(expected):
        for j, param in enumerate(params):
            what = say("ch3:param after step", j=j, step=s + 1, shape=tuple(param.shape))
            assert_tensor_equal(
                history[s][j], param, what=what, case=case, hint=hint, tolerances=TRAINING_TOLERANCES
            )


def assert_optimizer_state(run, case) -> None:
    """What the optimizer keeps alive, on memory alone: a wrong value is the result part's to
    catch, so a bug in the update costs its points once."""
    least, most = reference.expected_state_bytes(case)
    most += COUNTER_BYTES * len(case.shapes)
    kept = run[0]["state_bytes"]
    if not least <= kept <= most:
        said = {"kept": kept, "least": least, "most": most, "steps": case.steps}
        message = say("ch3:state too large", **said) if kept > most else say("ch3:state too small", **said)
        fail(message, case, say(f"ch3:{case.optimizer}:state:hint"))


def _assert_int(answer, case, hint_key: str) -> None:
    if not isinstance(answer, int) or isinstance(answer, bool):
        fail(say("ch3:not an int", got=repr(answer)), case, say(hint_key))


def _assert_refuses_unknown(got, case, call: str) -> None:
    if got["unknown"] != "ValueError":
        raised = got["unknown"] or "nothing"
        fail(say("ch3:unknown name", call=call, raised=raised), case, say("ch3:unknown name:hint"))


def assert_state_bytes(run, case) -> None:
    got = run[0]
    _assert_int(got["answer"], case, "ch3:state bytes:hint")
    _assert_refuses_unknown(got, case, 'optimizer_state_bytes("adamax", ...)')
    if got["answer"] != got["measured"]:
        said = {"got": got["answer"], "measured": got["measured"], "name": case.name}
        fail(say("ch3:state bytes", **said), case, say("ch3:state bytes:hint"))


def assert_bytes_per_param(run, case) -> None:
    got = run[0]
    measured = got["measured"]
    n = measured["n_params"]
    k, remainder = divmod(measured["optimizer_states"] + measured["master_weights"], n)
    assert remainder == 0, f"the kit measured a K that is not whole: {measured}"
    _assert_int(got["answer"], case, "ch3:bytes per param:hint")
    _assert_refuses_unknown(got, case, f'bytes_per_param("fp8", {case.optimizer!r})')
    if got["answer"] != k:
        said = {
            "got": got["answer"],
            "k": k,
            "n": n,
            "states": measured["optimizer_states"],
            "masters": measured["master_weights"],
        }
        fail(say("ch3:bytes per param", **said), case, say("ch3:bytes per param:hint"))
