"""Every way torch offers to differentiate, taken inside a graded backward, is refused by the "by
hand" allowlist alone (:mod:`graders.comm.hand_written`), whatever Python name reaches it: reverse
mode through the engine (public, private, as an object), a node called directly, the higher-order
helpers of ``torch.autograd.functional``, forward-mode dual numbers, every ``torch.func``
transform, a scripted and a compiled function, and autograd's derivative kernels by name. The
lesson's own backward (one product) is admitted, and its arithmetic is what the checks expect.

The routes live in ``fixtures/probes/autodiff_routes.py``, the graded folder of this test: the
mode asks, as in a worker, whether graded code is behind each operator.
"""

from __future__ import annotations

import sys

import pytest
import torch

from graders.comm.callers import graded_request
from graders.comm.hand_written import HandWrittenMath, admitted
from graders.impl import KIT_ROOT

PROBES = KIT_ROOT / "fixtures" / "probes"
sys.path.insert(0, str(PROBES))
import autodiff_routes  # noqa: E402

ROOT = str(PROBES) + "/"


class Refused(Exception):
    pass


class _Bans:
    """The worker's bans, reduced to what the mode asks of them: a refusal is recorded, then raised
    (in a worker the trace keeps it, whatever becomes of the exception: TorchScript re-raises it
    as a RuntimeError, graded code may catch it)."""

    def __init__(self) -> None:
        self.refused: list[str] = []

    def graded_request(self, frame) -> bool:
        return graded_request(frame, ROOT)

    def refuse(self, dotted: str, why: str = "") -> None:
        self.refused.append(dotted)
        raise Refused(dotted)


X = torch.randn(3, 4, dtype=torch.float64)
WEIGHT = torch.randn(5, 4, dtype=torch.float64)
GRAD = torch.randn(3, 5, dtype=torch.float64)


def _backward_through(route) -> HandWrittenMath:
    """Run ``route`` as the backward of ``y = x Wᵀ`` under the allowlist; the mode afterwards."""

    class Product(torch.autograd.Function):
        @staticmethod
        def forward(ctx, weight):
            return X @ weight.t()

        @staticmethod
        def backward(ctx, grad):
            return route(X, WEIGHT, grad)

    mode = HandWrittenMath(_Bans())
    weight = WEIGHT.clone().requires_grad_()
    try:
        with mode:
            Product.apply(weight).backward(GRAD)
    except Exception:  # noqa: BLE001  (a refusal, however it came back up)
        assert mode.bans.refused, "the route failed without a refusal"
    return mode


def test_the_routes_are_every_family():
    families = {"autograd_grad", "dual_numbers", "func_vjp", "func_jvp", "func_linearize", "scripted"}
    assert families <= set(autodiff_routes.ROUTES)
    assert len(autodiff_routes.ROUTES) >= 20


@pytest.mark.parametrize("name", sorted(autodiff_routes.ROUTES))
def test_every_autodiff_route_is_refused_or_seen(name):
    """Refused at the dispatcher (an operator off the list, or one run by autograd's own node), or,
    for a node called without the engine, seen as a graph autograd recorded for graded code."""
    mode = _backward_through(autodiff_routes.ROUTES[name])
    if mode.bans.refused:
        assert all(r.startswith(("operator:", "autograd:")) for r in mode.bans.refused), mode.bans.refused
        return
    report = mode.take()
    assert report["recorded"], f"{name} was neither refused nor recorded: {report}"


def test_the_lessons_backward_is_admitted_and_counted():
    mode = _backward_through(autodiff_routes.hand_written)
    assert mode.bans.refused == []
    report = mode.take()
    assert report["recorded"] == []
    assert report["backward"]["macs"] == 5 * 3 * 4  # gradᵀ [5, 3] × x [3, 4]
    assert report["backward"]["largest"] == 5 * 4


def test_plain_math_is_admitted():
    """What hand-written code is made of, by tag, by name and by shape."""
    aten = torch.ops.aten
    for op in (
        aten.mm.default,
        aten.addmm.default,
        aten.bmm.default,
        aten.add.Tensor,
        aten.mul_.Tensor,
        aten.sum.dim_IntList,
        aten.amax.default,
        aten._softmax.default,
        aten.view.default,
        aten.t.default,
        aten.cat.default,
        aten.empty.memory_format,
        aten.copy_.default,
        aten.masked_fill.Scalar,
        aten.zeros_like.default,
        aten.squeeze_.dim,  # an in-place view: a 1-D operand of matmul
        aten.narrow_copy.default,  # a view's copy
        aten.split.Tensor,
    ):
        assert admitted(op), op
    for op in (
        aten._efficientzerotensor.default,
        aten._has_same_storage_numel.default,
        aten.is_same_size.default,
        aten.threshold_backward.default,
        aten.gelu_backward.default,
        aten._new_zeros_with_same_feature_meta.default,
    ):
        assert not admitted(op), op
