"""Hidden graders of chapter 10: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points:
* the router's gradients when capacity drops tokens (the public part keeps every token): a
  dropped choice's gate gets no gradient, and the kept gates still carry the normalisation over
  all ``k`` choices;
* expert parallelism on larger worlds: 4 ranks, up to 8 experts and 24 tokens a rank, so that
  every rank both sends and receives rows of several experts.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch10 import cases, checks, tasks
from graders.chapters.ch10.expert_parallel import cases as parallel_cases
from graders.chapters.ch10.expert_parallel import checks as parallel_checks
from graders.judge import strategies as S
from graders.plugin import exercise

#: Large examples cost more: fewer of them than the profile's count, in every profile.
LARGE = settings(max_examples=10)


@st.composite
def dropping_router_cases(draw):
    experts = draw(st.integers(2, 8))
    k = draw(st.integers(1, min(3, experts)))
    return cases.build_router(
        draw(st.integers(4, 32)),
        draw(st.integers(2, 6)),
        experts,
        k,
        draw(st.sampled_from((0.25, 0.5, 0.75))),
        draw(st.booleans()),
        logits=draw(st.sampled_from(("random", "skewed"))),
        dtype="float64",
        seed=draw(S.seeds),
    )


@exercise("ch10.top_k_router", part="gradients")
@LARGE
@given(case=dropping_router_cases())
def test_router_gradients_when_tokens_are_dropped(harness, impl, case):
    checks.assert_router_gradients(harness.run(tasks.top_k_router, impl, case)[0], case)


@st.composite
def large_expert_parallel_cases(draw):
    per_rank = draw(st.integers(1, 2))
    return parallel_cases.build_expert_parallel(
        4,
        None,
        per_rank,
        tuple(draw(st.lists(st.integers(8, 24), min_size=4, max_size=4))),
        draw(st.integers(4, 8)),
        draw(st.integers(2, 6)),
        draw(st.integers(1, 2)),
        draw(st.sampled_from((0.5, 1.0, 1.25, 2.0))),
        normalize=draw(st.booleans()),
        logits=draw(st.sampled_from(("random", "skewed"))),
        dtype="float64",
        seed=draw(S.seeds),
    )


@exercise("ch10.expert_parallel_moe", part="result")
@LARGE
@given(case=large_expert_parallel_cases())
def test_expert_parallel_moe_on_a_larger_world(harness, impl, case):
    parallel_checks.assert_expert_parallel(harness.run(tasks.expert_parallel_moe, impl, case), case)
