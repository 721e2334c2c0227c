"""Chapter 10 graders: the MoE layer on one device (``moe_layer.py``).

Your layer routes with the kit's router (so that a router bug costs the router's points only),
runs its experts, and is compared with a layer written out token by token, forward and
backward.
"""

from hypothesis import given

from graders.chapters.ch10 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch10.moe_layer", part="result")
@given(case=cases.layer_cases())
@smallest_first(*cases.LAYER_EDGES)
def test_moe_layer(harness, impl, case):
    checks.assert_layer_output(harness.run(tasks.moe_layer, impl, case)[0], case)


@exercise("ch10.moe_layer", part="backward")
@given(case=cases.layer_cases())
@smallest_first(*cases.LAYER_EDGES)
def test_moe_layer_backward(harness, impl, case):
    checks.assert_layer_backward(harness.run(tasks.moe_layer, impl, case)[0], case)
