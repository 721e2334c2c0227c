"""Chapter 4 graders: sharded data parallelism (``fsdp.py``).

Every property trains the chapter's tiny model for 3 steps with your ``ShardedDataParallel``
on real gloo ranks, gathers the ranks' ``flat_param`` shards in the contract's layout, and
compares the parameters after every step with single-device training (where a parameter
that gets no gradient is stepped with a zero gradient, as a flat parameter does).
"""

from hypothesis import example, given

from graders.chapters.ch4 import cases, reference, tasks
from graders.checks import fail
from graders.comm.trace import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS
from graders.plugin import exercise
from graders.training import OptimizerSpec, assert_history_close

ADAMW = OptimizerSpec("adamw", 0.03, 0.2)
SGD = OptimizerSpec("sgd", 0.2, 0.05, momentum=0.9)
SGD_PLAIN = OptimizerSpec("sgd", 0.05, 0.2)  # float32 trains with SGD (optimizer_specs)
EDGE = (
    cases.TrainCase(4, None, "float32", SGD_PLAIN, seed=1),  # 178 elements: 2 of padding
    cases.TrainCase(3, (0, 2), "float64", SGD, seed=2),
    cases.TrainCase(1, None, "float64", ADAMW, seed=3),
    cases.TrainCase(4, (1, 2, 3), "float32", SGD, seed=4, rows=2),
)
LAYOUT = (
    "flat_param on group rank r is elements [r*S, (r+1)*S) of the trainable parameters "
    "(named_parameters order, tied once) flattened, concatenated and zero-padded to N*S, "
    "S = ceil(total / N); its .grad is that slice of the gradient averaged over the group."
)


def _assert_trains_like_one_device(run, case):
    expected = reference.history(case, zero_missing_grads=True)
    frozen = reference.frozen_names(case)
    numel = reference.shard_numel(case)
    shards = {rank: [] for rank in case.ranks}
    for rank in case.ranks:
        history = run[rank]["history"]
        for snapshot in history:
            shard = snapshot["flat_param"]
            if shard is None:
                fail(f"rank {rank}: the wrapper has no flat_param (its shard).", case, LAYOUT)
            if not hasattr(shard, "shape") or tuple(shard.shape) != (numel,):
                got = f"shape {tuple(shard.shape)}" if hasattr(shard, "shape") else shard
                fail(f"rank {rank}: flat_param should have shape ({numel},), got {got}.", case, LAYOUT)
            shards[rank].append(shard)
        assert_history_close(
            [snapshot["frozen"] for snapshot in history],
            [{name: step[name] for name in frozen} for step in expected],
            who=f"rank {rank}'s frozen parameters",
            case=case,
            hint="frozen parameters stay in the module, unchanged, on every rank.",
        )
    assert_history_close(
        [reference.unflatten([shards[r][k] for r in case.ranks], case) for k in range(case.steps)],
        [{name: t for name, t in step.items() if name not in frozen} for step in expected],
        who="the parameters gathered from every rank's flat_param",
        case=case,
        hint=LAYOUT,
    )


@exercise("ch4.fsdp", part="result")
@given(case=cases.train_cases())
@example(case=EDGE[0])
@example(case=EDGE[1])
@example(case=EDGE[2])
def test_fsdp(harness, impl, case):
    run = harness.run(tasks.fsdp, impl, case)
    _assert_trains_like_one_device(run, case)


@exercise("ch4.fsdp", part="memory")
@given(case=cases.train_cases(max_world=3))
@example(case=EDGE[3])
def test_fsdp_memory(harness, impl, case):
    run = harness.run(tasks.fsdp, impl, case)
    _assert_trains_like_one_device(run, case)
    bound, shard, frozen = reference.persistent_bytes_bound(case)
    for rank in case.ranks:
        for when, held in run[rank]["memory"]:
            if held > bound:
                fail(
                    f"rank {rank} holds {held} B of floating-point tensors {when}; its share is "
                    f"{bound} B: its shard ({shard} B, {reference.shard_numel(case)} elements) plus "
                    f"the frozen parameters ({frozen} B).",
                    case,
                    "release the module's own trainable parameters at construction, keep the shard "
                    "as its own tensor (a slice of a bigger tensor keeps all of it alive: clone it), "
                    "and drop the gathered full parameters as soon as forward returns.",
                )


@exercise("ch4.fsdp", part="traffic")
@given(case=cases.train_cases(min_world=2, max_world=3))
@example(case=EDGE[1])
def test_fsdp_traffic(harness, impl, case):
    run = harness.run(tasks.fsdp, impl, case)
    _assert_trains_like_one_device(run, case)
    shard_bytes = reference.persistent_bytes_bound(case)[1]
    for rank in case.ranks:
        for _, events in run.traces.phases(rank):
            reduced = [e for e in events if e.op in ALL_REDUCES]
            if reduced:
                fail(
                    f"rank {rank} all-reduced {reduced[0].nbytes} B: every rank then holds the whole "
                    "averaged gradient, which is what sharding avoids.",
                    case,
                    "reduce-scatter the full flat gradient: rank r receives only the average of its shard.",
                )
        forwards = run.traces.phase(rank, "forward_end")
        backwards = run.traces.phase(rank, "backward_end")
        for step, (forward, backward) in enumerate(zip(forwards, backwards, strict=False), start=1):
            where = f"rank {rank}, step {step}"
            if not any(e.op in ALL_GATHERS for e in forward):
                fail(f"{where}: no all-gather in forward.", case, "gather the full parameters in forward.")
            if not any(e.op in ALL_GATHERS for e in backward):
                fail(
                    f"{where}: no all-gather during backward.",
                    case,
                    "free the full parameters when forward returns and gather them again when "
                    "backward needs them (torch.autograd.graph.saved_tensors_hooks).",
                )
            if not any(e.op in REDUCE_SCATTERS for e in backward):
                fail(f"{where}: no reduce-scatter of the gradients during backward.", case, LAYOUT)
            gathered = sum(e.nbytes for e in forward + backward if e.op in ALL_GATHERS)
            if gathered > 2 * shard_bytes:
                fail(
                    f"{where}: contributed {gathered} B to all-gathers; gathering the parameters twice "
                    f"(forward, backward) takes 2 × {shard_bytes} B from each rank.",
                    case,
                )
