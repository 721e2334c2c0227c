"""Chapter 10 judgements for one device: the capacity, the router and the MoE layer.

The router is judged in four parts that fail apart: which experts each token picks and with
what weight (an ample capacity, ties included), which tokens capacity drops (the structural
properties first, then the exact slots), the two losses, and the gradients the combine weights
carry back. The layer is judged on its output, then on every gradient.
"""

from __future__ import annotations

import torch

from graders.chapters.ch10 import reference
from graders.chapters.ch10.cases import capacity
from graders.chapters.ch10.load_balance import router_picture
from graders.judge.checks import assert_number_close, assert_tensor_equal, fail, showing
from graders.words.messages import say

#: a layer sums its experts' outputs in another order than the written-out reference
LAYER_TOLERANCES = {torch.float32: (1e-4, 1e-5), torch.float64: (1e-9, 1e-11)}


def assert_capacity(got, case) -> None:
    want = capacity(case.tokens, case.num_experts, case.k, case.capacity_factor)
    if not isinstance(got, int) or isinstance(got, bool):
        fail(say("ch10:capacity not int", got=repr(got)), case, say("ch10:capacity:hint"))
    assert_number_close(got, want, say("ch10:capacity"), case, say("ch10:capacity:hint"))


# -- the router ---------------------------------------------------------------------------------------


def _routing_tensor(run, name: str, case, hint) -> torch.Tensor:
    got = run[name]
    if not isinstance(got, torch.Tensor):
        fail(say("ch10:routing field", name=name, got=repr(got)), case, hint)
    return got


def _shaped(got: torch.Tensor, want: torch.Tensor, name: str, case, hint) -> None:
    """``got`` has ``want``'s shape and dtype (its values are judged apart)."""
    if tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype:
        what = say("ch10:routing of", name=name)
        assert_tensor_equal(got, want, what=what, case=case, hint=say("ch10:capacity shape:hint"))


def assert_routing(run, case) -> None:
    """Each token's experts (best first, ties to the lower index), which experts it reaches and
    with what weight: the slot axis summed away, so that the slot order is the capacity part's."""
    want = reference.router_values(case)
    hint = say("ch10:ties:hint") if case.logits in ("ties", "uniform") else say("ch10:routing:hint")
    experts = _routing_tensor(run, "experts", case, hint)
    assert_tensor_equal(
        experts, want["experts"], what=say("ch10:routing of", name="experts"), case=case, hint=hint
    )
    for name in ("dispatch", "combine"):
        _shaped(_routing_tensor(run, name, case, hint), want[name], name, case, hint)
    reached = say("ch10:experts reached")
    assert_tensor_equal(
        run["dispatch"].any(dim=-1), want["dispatch"].any(dim=-1), what=reached, case=case, hint=hint
    )
    weights = say("ch10:token weights")
    assert_tensor_equal(
        run["combine"].sum(dim=-1),
        want["combine"].sum(dim=-1),
        what=weights,
        case=case,
        hint=say("ch10:gates:hint"),
    )


def assert_capacity_drops(run, case) -> None:
    """At most ``k`` experts per token and ``capacity`` tokens per expert, slots filled from 0,
    then exactly the reference's slots (the drops follow position priority), and combine
    weights only in dispatched slots."""
    want = reference.router_values(case)
    hint = say("ch10:slots:hint")
    dispatch = _routing_tensor(run, "dispatch", case, hint)
    _shaped(dispatch, want["dispatch"], "dispatch", case, hint)
    d = dispatch.bool()
    picture = router_picture(d, case.tokens * case.k)  # the slots as the student's router filled them
    per_token = d.sum(dim=(1, 2))
    if bool((per_token > case.k).any()):
        t = int((per_token > case.k).nonzero()[0])
        fail(say("ch10:too many experts", t=t, n=int(per_token[t]), k=case.k), case, hint, picture=picture)
    per_slot = d.sum(dim=0)
    if bool((per_slot > 1).any()):
        e, c = (int(v) for v in (per_slot > 1).nonzero()[0])
        fail(say("ch10:slot shared", e=e, c=c), case, hint, picture=picture)
    used = d.any(dim=0)  # [E, C]
    holes = used[:, 1:] & ~used[:, :-1]
    if bool(holes.any()):
        e, c = (int(v) for v in holes.nonzero()[0])
        fail(say("ch10:slot hole", e=e, c=c), case, hint, picture=picture)
    with showing(picture):
        what = say("ch10:routing of", name="dispatch")
        assert_tensor_equal(dispatch, want["dispatch"], what=what, case=case, hint=say("ch10:priority:hint"))
    combine = _routing_tensor(run, "combine", case, hint)
    _shaped(combine, want["combine"], "combine", case, hint)
    stray = (combine != 0) & ~d
    if bool(stray.any()):
        t, e, c = (int(v) for v in stray.nonzero()[0])
        fail(say("ch10:weight without slot", t=t, e=e, c=c), case, say("ch10:gates:hint"), picture=picture)


def assert_losses(run, case) -> None:
    """The Switch auxiliary loss (1 for uniform routing) and the z-loss, and their gradients."""
    want = reference.router_values(case)
    for name, hint in (("aux_loss", say("ch10:aux:hint")), ("z_loss", say("ch10:z:hint"))):
        got = run[name]
        if not isinstance(got, torch.Tensor) or got.numel() != 1:
            fail(say("ch10:loss not scalar", name=name, got=repr(got)), case, hint)
        uniform = name == "aux_loss" and case.logits == "uniform"
        what = say("ch10:uniform aux") if uniform else say("ch10:loss value", name=name)
        assert_tensor_equal(got.reshape(()), want[name], what=what, case=case, hint=hint)
    if run["no_loss_grad"]:
        fail(say("ch10:loss no grad", why=run["no_loss_grad"]), case, say("ch10:loss grad:hint"))
    assert_tensor_equal(
        _zero_if_none(run["loss_weight_grad"], want["loss_weight_grad"]),
        want["loss_weight_grad"],
        what=say("ch10:loss weight grad"),
        case=case,
        hint=say("ch10:loss grad:hint"),
    )


def _zero_if_none(got, like: torch.Tensor):
    """A gradient autograd left out (``None``) is a zero gradient."""
    return torch.zeros_like(like) if got is None else got


def assert_router_gradients(run, case) -> None:
    """The gradients the combine weights send to the router's weight and to the tokens."""
    want = reference.router_values(case)
    hint = say("ch10:router grad:hint")
    if run["no_grad"]:
        fail(say("ch10:combine no grad", why=run["no_grad"]), case, hint)
    for key, what in (
        ("weight_grad", say("ch10:router weight grad")),
        ("input_grad", say("ch10:tokens grad")),
    ):
        assert_tensor_equal(
            _zero_if_none(run[key], want[key]),
            want[key],
            what=what,
            case=case,
            hint=hint,
            tolerances=LAYER_TOLERANCES,
        )


# -- the layer ---------------------------------------------------------------------------------------------


def assert_layer_output(run, case) -> None:
    want = reference.layer_case_values(case)
    with showing(router_picture(want["dispatch"], case.tokens * case.k)):
        assert_tensor_equal(
            run["output"],
            want["output"],
            what=say("ch10:layer output"),
            case=case,
            hint=say("ch10:layer:hint"),
            tolerances=LAYER_TOLERANCES,
        )


def assert_layer_backward(run, case) -> None:
    want = reference.layer_case_values(case)
    assert_layer_output(run, case)
    hint = say("ch10:layer backward:hint")
    if run["skipped"]:
        fail(say("ch10:no backward", rank=0, why=run["skipped"]), case, say("ch10:no backward:hint"))
    assert_tensor_equal(
        run["input_grad"],
        want["input_grad"],
        what=say("ch10:tokens grad"),
        case=case,
        hint=hint,
        tolerances=LAYER_TOLERANCES,
    )
    assert_tensor_equal(
        _zero_if_none(run["router_grad"], want["router_grad"]),
        want["router_grad"],
        what=say("ch10:router weight grad"),
        case=case,
        hint=say("ch10:combine grad:hint"),
        tolerances=LAYER_TOLERANCES,
    )
    assert_expert_grads(
        run["expert_grads"], want["expert_grads"], range(case.num_experts), case, hint, rank=0
    )


def assert_expert_grads(got, want, experts, case, hint, *, rank: int) -> None:
    """``got[j]`` holds expert ``experts[j]``'s four gradients (an idle expert's may be None)."""
    for j, e in enumerate(experts):
        for p, name in enumerate(("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")):
            what = say("ch10:expert grad", rank=rank, e=e, name=name)
            assert_tensor_equal(
                _zero_if_none(got[j][p], want[e][p]),
                want[e][p],
                what=what,
                case=case,
                hint=hint,
                tolerances=LAYER_TOLERANCES,
            )
