"""Chapter 4 judgements: training equivalence with one device, DDP's buckets, overlap and
``no_sync``, the parameter server's star, and sharded data parallelism's memory and traffic.

The traces carry the marks of :func:`graders.training.data_parallel_steps` (``forward_end``,
``backward_end``, ``no_sync_begin`` / ``no_sync_end``, ``step_end``), which cut every rank's
calls into the phases these checks read.
"""

from __future__ import annotations

from graders.chapters.ch4 import reference
from graders.chapters.ch4.cases import TrainCase, trainable_bytes
from graders.checks import fail
from graders.comm.assertions import assert_star, assert_traffic_at_most
from graders.comm.overlap import describe_late, late_bucket, unreported
from graders.comm.trace import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS
from graders.training import assert_history_close

PARAM_SERVER_HINT = (
    "the server averages every rank's gradients (its own included) into .grad, steps, and "
    "sends the parameters back; parameters whose .grad is None must stay None on the server."
)
DDP_HINT = (
    "broadcast every parameter from group rank 0 at construction; after "
    "finish_gradient_synchronization() every .grad is the average over the group (None stays None)."
)
FSDP_LAYOUT = (
    "flat_param on group rank r is elements [r*S, (r+1)*S) of the trainable parameters "
    "(named_parameters order, tied once) flattened, concatenated and zero-padded to N*S, "
    "S = ceil(total / N); its .grad is that slice of the gradient averaged over the group."
)


def _assert_trains_like_one_device(run, case: TrainCase, hint: str) -> None:
    expected = reference.history(case)
    for rank in case.ranks:
        assert_history_close(run[rank]["history"], expected, who=f"rank {rank}", case=case, hint=hint)


def assert_param_server_trains(run, case: TrainCase) -> None:
    """Every rank's parameters after every step equal single-device training on the global batch."""
    _assert_trains_like_one_device(run, case, PARAM_SERVER_HINT)


def assert_ddp_trains(run, case: TrainCase) -> None:
    _assert_trains_like_one_device(run, case, DDP_HINT)


# -- parameter server ----------------------------------------------------------------------------


def assert_load_on_the_server(run, case: TrainCase) -> None:
    """Right values, and every message goes to or comes from the server; workers move at most
    their gradients and the parameters per step."""
    assert_param_server_trains(run, case)
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
    _assert_server_exchanges_every_step(run, case, server, workers, load)
    per_step = 2 * model_bytes + 256  # gradients up, parameters down, a little metadata
    assert_traffic_at_most(
        run.traces,
        workers,
        case.steps * per_step,
        case,
        f"per step a worker sends its gradients once and receives the parameters once "
        f"(≤ {per_step} B for this model, whatever the number of ranks). " + load,
    )


def _assert_server_exchanges_every_step(run, case: TrainCase, server: int, workers, load: str) -> None:
    """What must be sent: every step, each worker's gradients to the server, the updated
    parameters back to each worker."""
    grads, params = reference.gradient_bytes(case), trainable_bytes(case)
    for worker in workers:
        steps = run.traces.phase(worker, "step_end")
        for step in range(1, case.steps + 1):
            events = steps[step - 1] if step <= len(steps) else []
            sent = sum(e.nbytes for e in events if e.is_send and e.peer == server)
            received = sum(e.nbytes for e in events if e.is_recv and e.peer == server)
            if sent < grads:
                fail(
                    f"rank {worker}, step {step}: sent {sent} B to the server (rank {server}); its "
                    f"gradients are {grads} B, and every step the server needs all of them from every "
                    "worker.",
                    case,
                    "each worker sends its own gradients to the server once per step. " + load,
                )
            if received < params:
                fail(
                    f"rank {worker}, step {step}: received {received} B from the server (rank {server}); "
                    f"the updated trainable parameters are {params} B, and every worker needs them every "
                    "step.",
                    case,
                    "after its step the server sends the updated parameters to every worker. " + load,
                )


# -- DDP -------------------------------------------------------------------------------------------


def _all_reduces(events):
    return [e for e in events if e.op in ALL_REDUCES]


def _synchronised_all_reduces(run, rank):
    """Per step: the all-reduces issued from the synchronised backward to the end of the step."""
    steps, current, counting = [], [], False
    for label, events in run.traces.phases(rank):
        if counting:
            current += _all_reduces(events)
        if label in ("no_sync_end", "forward_end") and not counting:
            counting, current = True, []
        elif label == "step_end":
            steps.append(current)
            counting = False
    return steps


def assert_buckets(run, case: TrainCase) -> None:
    """Right values, and once per step one all-reduce per bucket of the reference layout."""
    assert_ddp_trains(run, case)
    buckets = reference.buckets(case)
    sizes = sorted(sum(b for _, b in bucket) for bucket in buckets)
    for rank in case.ranks:
        for step, issued in enumerate(_synchronised_all_reduces(run, rank), start=1):
            got = sorted(e.nbytes for e in issued)
            if got != sizes:
                fail(
                    f"rank {rank}, step {step}: {len(got)} all-reduce(s) of {got} B; with "
                    f"bucket_cap_mb={case.bucket_cap_bytes}/2**20 the {len(buckets)} bucket(s) are "
                    f"{reference.describe_buckets(buckets)}.",
                    case,
                    "walk the trainable parameters in reverse order of module.parameters(), close a "
                    "bucket once it holds >= bucket_cap_mb * 2**20 bytes, and all-reduce each bucket "
                    "once per backward as one flat buffer.",
                )


def assert_overlaps_backward(run, case: TrainCase) -> None:
    """Right values, and every bucket's all-reduce launched before the next gradient is
    computed; after backward only the buckets that could not complete in it are launched."""
    assert_ddp_trains(run, case)
    layout = reference.buckets(case)
    buckets = [[name for name, _ in bucket] for bucket in layout]
    names = [frozenset(bucket) for bucket in buckets]
    with_grad = reference.gradient_names(case)
    incomplete = sum(1 for bucket in buckets if not set(bucket) <= with_grad)
    hint = (
        "launch a bucket's all-reduce (async_op=True) from the post-accumulate-grad hook of its last "
        "gradient, while backward goes on; finish_gradient_synchronization() only waits."
    )
    for rank in case.ranks:
        backwards = run.traces.phase(rank, "backward_end", with_ready=True)
        steps = run.traces.phase(rank, "step_end")
        for step, events in enumerate(backwards, start=1):
            silent = unreported(events, with_grad)
            if silent:
                fail(
                    f"rank {rank}, step {step}: the graders never saw the gradient of {', '.join(silent)} "
                    "become ready: their hooks on the parameters were removed.",
                    case,
                    "leave the parameters' hooks alone; register your own next to them.",
                )
            late = late_bucket(events, names, ALL_REDUCES)
            if late is not None:
                fail(
                    f"rank {rank}, step {step}: {describe_late(late, buckets[late.bucket], 'all-reduce')}\n"
                    f"buckets: {reference.describe_buckets(layout)}",
                    case,
                    hint,
                )
            after = _all_reduces(steps[step - 1]) if step <= len(steps) else []
            if len(after) > incomplete:
                fail(
                    f"rank {rank}, step {step}: {len(after)} all-reduce(s) after backward returned "
                    f"(at most {incomplete}: the buckets that cannot complete in backward); the "
                    "gradients were averaged after backward, not while it ran.",
                    case,
                    hint,
                )


def assert_no_sync(run, case: TrainCase) -> None:
    """Right values; no call inside ``no_sync()``; after it, as many all-reduces as the rank's own
    step without it (one per bucket: how the buckets are cut is the buckets part's); overlap kept."""
    assert_ddp_trains(run, case)
    for rank in case.ranks:
        synchronised = _synchronised_all_reduces(run, rank)
        expected = len(synchronised[0]) if synchronised else len(reference.buckets(case))
        for step, events in enumerate(run.traces.phase(rank, "no_sync_end"), start=2):
            if events:
                fail(
                    f"rank {rank}, step {step}: {len(events)} call(s) ({events[0].op}, ...) inside "
                    "no_sync(); accumulation must not communicate.",
                    case,
                    "inside no_sync() the hooks only let gradients accumulate in .grad.",
                )
        for step, issued in enumerate(synchronised[1:], start=2):
            if len(issued) != expected:
                fail(
                    f"rank {rank}, step {step}: {len(issued)} all-reduce(s) after no_sync(), {expected} in "
                    "step 1 without it; the accumulated gradients travel in the same buckets, one "
                    "all-reduce each.",
                    case,
                )
        # Step 1 runs without no_sync: if it overlapped, the steps after no_sync() must too.
        overlapped = [bool(_all_reduces(events)) for events in run.traces.phase(rank, "backward_end")]
        if overlapped and overlapped[0] and not all(overlapped):
            fail(
                f"rank {rank}: step 1 all-reduced during backward, but step {overlapped.index(False) + 1}, "
                "after no_sync(), waited for finish_gradient_synchronization().",
                case,
                "leaving no_sync() must restore synchronisation, and the hooks' bookkeeping (how many "
                "gradients of a bucket are ready) must not count the backward passes inside no_sync().",
            )


def assert_agrees_with_torch_ddp(run, case: TrainCase) -> None:
    for rank in case.ranks:
        assert_history_close(
            run[rank]["history"],
            run[rank]["torch"],
            who=f"rank {rank} (your DDP vs torch.nn.parallel.DistributedDataParallel on the same data)",
            case=case,
            hint=DDP_HINT,
        )


# -- sharded data parallelism ----------------------------------------------------------------------


def assert_sharded_trains_like_one_device(run, case: TrainCase) -> None:
    expected = reference.history(case, zero_missing_grads=True)
    frozen = reference.frozen_names(case)
    numel = reference.shard_numel(case)
    shards = {rank: [] for rank in case.ranks}
    for rank in case.ranks:
        history = run[rank]["history"]
        for snapshot in history:
            shard = snapshot["flat_param"]
            if shard is None:
                fail(f"rank {rank}: the wrapper has no flat_param (its shard).", case, FSDP_LAYOUT)
            if not hasattr(shard, "shape") or tuple(shard.shape) != (numel,):
                got = f"shape {tuple(shard.shape)}" if hasattr(shard, "shape") else shard
                fail(f"rank {rank}: flat_param should have shape ({numel},), got {got}.", case, FSDP_LAYOUT)
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
        hint=FSDP_LAYOUT,
    )


def _assert_sharded_step_sends_enough(forward, backward, where: str, case: TrainCase) -> None:
    """What must be sent in one step: the rank's whole shard to each all-gather (forward, and
    again in backward), and the whole flat gradient to the reduce-scatter."""
    shard_bytes = reference.persistent_bytes_bound(case)[1]
    for phase, events in (("forward", forward), ("backward", backward)):
        gathered = sum(e.nbytes for e in events if e.op in ALL_GATHERS)
        if gathered < shard_bytes:
            fail(
                f"{where}: contributed {gathered} B to all-gathers in {phase}; the other ranks need this "
                f"rank's whole shard ({shard_bytes} B) to rebuild the parameters.",
                case,
                FSDP_LAYOUT,
            )
    reduced = sum(e.nbytes for e in backward if e.op in REDUCE_SCATTERS)
    if reduced < trainable_bytes(case):
        fail(
            f"{where}: reduce-scattered {reduced} B in backward; the flat gradient of the trainable "
            f"parameters is {trainable_bytes(case)} B, and every rank's share of it must travel.",
            case,
            FSDP_LAYOUT,
        )


def assert_sharded_traffic(run, case: TrainCase) -> None:
    assert_sharded_trains_like_one_device(run, case)
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
                fail(f"{where}: no reduce-scatter of the gradients during backward.", case, FSDP_LAYOUT)
            _assert_sharded_step_sends_enough(forward, backward, where, case)
            gathered = sum(e.nbytes for e in forward + backward if e.op in ALL_GATHERS)
            if gathered > 2 * shard_bytes:
                fail(
                    f"{where}: contributed {gathered} B to all-gathers; gathering the parameters twice "
                    f"(forward, backward) takes 2 × {shard_bytes} B from each rank.",
                    case,
                )
