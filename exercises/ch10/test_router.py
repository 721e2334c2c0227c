"""Chapter 10 graders: the capacity and the top-k router (``router.py``).

Your router runs in a worker on tokens drawn with random, exactly tied, uniform and skewed
logits, and is compared with a router written out token by token: which experts each token
picks, which tokens capacity drops, the two losses, and the gradients.
"""

from hypothesis import given

from graders.chapters.ch10 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch10.capacity", part="formula")
@given(case=cases.capacity_cases())
@smallest_first(*cases.CAPACITY_EDGES)
def test_capacity(harness, impl, case):
    checks.assert_capacity(harness.run(tasks.capacity, impl, case)[0], case)


@exercise("ch10.top_k_router", part="routing")
@given(case=cases.router_cases(drops=False))
@smallest_first(*cases.ROUTING_EDGES)
def test_router_picks_the_top_k(harness, impl, case):
    checks.assert_routing(harness.run(tasks.top_k_router, impl, case)[0], case)


@exercise("ch10.top_k_router", part="capacity")
@given(case=cases.router_cases())
@smallest_first(*cases.CAPACITY_ROUTER_EDGES)
def test_router_drops_by_position_priority(harness, impl, case):
    checks.assert_capacity_drops(harness.run(tasks.top_k_router, impl, case)[0], case)


@exercise("ch10.top_k_router", part="losses")
@given(case=cases.router_cases())
@smallest_first(*cases.LOSS_EDGES)
def test_router_losses(harness, impl, case):
    checks.assert_losses(harness.run(tasks.top_k_router, impl, case)[0], case)


@exercise("ch10.top_k_router", part="gradients")
@given(case=cases.router_cases())
@smallest_first(*cases.ROUTING_EDGES, cases.DROPPING_GRADIENT_EDGE)
def test_router_gradients(harness, impl, case):
    checks.assert_router_gradients(harness.run(tasks.top_k_router, impl, case)[0], case)
