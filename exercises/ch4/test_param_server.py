"""Chapter 4 graders: the parameter server (``param_server.py``).

Run ``pytest exercises/ch4`` to grade your work; ``--impl PATH`` grades another folder. Every
property trains the chapter's tiny model for 3 steps on 1-4 real gloo ranks and compares the
parameters after every step with single-device training on the global batch.
"""

from hypothesis import example, given

from graders.chapters.ch4 import cases, checks, tasks
from graders.plugin import exercise

EDGE = cases.PARAM_SERVER_EDGES


@exercise("ch4.param_server", part="result")
@given(case=cases.train_cases())
@example(case=EDGE[2])
@example(case=EDGE[1])
@example(case=EDGE[0])
def test_param_server(harness, impl, case):
    checks.assert_param_server_trains(harness.run(tasks.param_server, impl, case), case)


@exercise("ch4.param_server", part="traffic")
@given(case=cases.train_cases(min_world=2, max_world=3))
@example(case=EDGE[1])
def test_param_server_load_is_on_the_server(harness, impl, case):
    checks.assert_load_on_the_server(harness.run(tasks.param_server, impl, case), case)
