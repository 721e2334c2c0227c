"""Hidden graders of chapter 1: run at grading time only, absent from the student release.

They bring more evidence to parts the students already see, never new points:
* torchrun's variables as a shell may leave them, with spaces or a sign around the number
  (``" 3"``, ``"+1"``): ``int()`` of the text reads them, and so must ``read_dist_env``;
* the first DDP script trained longer (4-5 epochs of 24-40 examples, 3-8 per batch), where a
  step that is slightly off (a learning rate read as an int, a loss averaged over the wrong
  count on the last batch) drifts further from one process's training.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.chapters.ch1 import cases, checks, tasks
from graders.chapters.ch1.first_ddp import cases as ddp_cases
from graders.chapters.ch1.first_ddp import checks as ddp_checks
from graders.judge import strategies as S
from graders.plugin import exercise

#: Large examples cost more: fewer of them than the profile's count, in every profile.
FEW = settings(max_examples=4)


@st.composite
def padded_env_cases(draw):
    env = draw(cases.valid_envs())
    for name in cases.VARIABLES:
        if name != "MASTER_ADDR" and draw(st.booleans()):
            env[name] = draw(st.sampled_from((" {} ", "{} ", "+{}"))).format(env[name])
    return cases.env_case(env)


@exercise("ch1.read_dist_env", part="result")
@given(case=padded_env_cases())
def test_padded_numbers_are_read_as_int_reads_them(harness, impl, case):
    checks.assert_env_read(harness.run(tasks.read_dist_env, impl, case), case)


@st.composite
def long_ddp_cases(draw):
    return ddp_cases.build_ddp_case(
        2 * draw(st.integers(12, 20)),
        draw(st.integers(2, 4)),
        draw(st.integers(4, 8)),
        draw(st.integers(4, 5)),
        draw(st.integers(3, 8)),
        draw(st.sampled_from((0.05, 0.1))),
        0.9,
        draw(S.seeds),
    )


@exercise("ch1.first_ddp", part="result")
@FEW
@given(case=long_ddp_cases())
def test_ddp_trains_like_one_process_over_a_longer_run(harness, impl, case):
    ddp_checks.assert_ddp_result(harness.run(tasks.first_ddp, impl, case), case)
