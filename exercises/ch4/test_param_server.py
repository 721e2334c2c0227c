"""Chapter 4 graders: the parameter server (``param_server.py``).

Run ``pytest exercises/ch4`` to grade your work; ``--impl PATH`` grades another folder. Every
property trains the chapter's tiny model for 3 steps on 1-4 real gloo ranks and compares the
parameters after every step with single-device training on the global batch.
"""

from hypothesis import example, given

from graders.chapters.ch4 import cases, reference, tasks
from graders.comm.assertions import assert_star, assert_traffic_at_most
from graders.plugin import exercise
from graders.training import OptimizerSpec, assert_history_close

ADAMW = OptimizerSpec("adamw", 0.03, 0.2)
SGD = OptimizerSpec("sgd", 0.2, 0.05, momentum=0.9)
SGD_PLAIN = OptimizerSpec("sgd", 0.05, 0.2)  # float32 trains with SGD (optimizer_specs)
EDGE = (
    cases.TrainCase(4, None, "float32", SGD_PLAIN, seed=1),
    cases.TrainCase(4, (1, 2, 3), "float64", ADAMW, seed=2),  # the server is global rank 1
    cases.TrainCase(1, None, "float64", SGD, seed=4),
)
HINT = (
    "the server averages every rank's gradients (its own included) into .grad, steps, and "
    "sends the parameters back; parameters whose .grad is None must stay None on the server."
)


def _assert_trains_like_one_device(run, case):
    expected = reference.history(case)
    for rank in case.ranks:
        assert_history_close(run[rank]["history"], expected, who=f"rank {rank}", case=case, hint=HINT)


@exercise("ch4.param_server", part="result")
@given(case=cases.train_cases())
@example(case=EDGE[0])
@example(case=EDGE[1])
@example(case=EDGE[2])
def test_param_server(harness, impl, case):
    run = harness.run(tasks.param_server, impl, case)
    _assert_trains_like_one_device(run, case)


@exercise("ch4.param_server", part="traffic")
@given(case=cases.train_cases(min_world=2, max_world=3))
@example(case=EDGE[1])
def test_param_server_load_is_on_the_server(harness, impl, case):
    run = harness.run(tasks.param_server, impl, case)
    _assert_trains_like_one_device(run, case)
    server, workers = case.ranks[0], case.ranks[1:]
    model_bytes = sum(p.nbytes for p in case.params)
    moved = {rank: run.traces.bytes_sent(rank) + run.traces.bytes_received(rank) for rank in case.ranks}
    worker = max(moved[w] for w in workers)
    load = (
        f"with {len(workers)} worker(s), the server (rank {server}) moved {moved[server]} B, "
        f"{moved[server] / max(worker, 1):.1f}x a worker's {worker} B: a server's traffic grows with "
        "the number of workers while a worker's does not; all-reduce removes that bottleneck."
    )
    assert_star(
        run.traces,
        case.ranks,
        server,
        case,
        "workers send their gradients to the server and receive the parameters from it; they "
        "never talk to each other. " + load,
    )
    per_step = 2 * model_bytes + 256  # gradients up, parameters down, a little metadata
    assert_traffic_at_most(
        run.traces,
        workers,
        case.steps * per_step,
        case,
        f"per step a worker sends its gradients once and receives the parameters once "
        f"(≤ {per_step} B for this model, whatever the number of ranks). " + load,
    )
