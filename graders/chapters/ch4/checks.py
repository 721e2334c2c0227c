"""Chapter 4 judgements: training equivalence with one device, DDP's buckets, overlap and
``no_sync``, the parameter server's star, and sharded data parallelism's memory and traffic.

The traces carry the marks of :func:`graders.training.data_parallel_steps` (``forward_end``,
``backward_end``, ``no_sync_begin`` / ``no_sync_end``, ``step_end``), which cut every rank's
calls into the phases these checks read.
"""

from __future__ import annotations

from graders.chapters.ch4 import reference
from graders.chapters.ch4.cases import TrainCase, trainable_bytes
from graders.comm.assertions import assert_star, assert_traffic_at_most
from graders.comm.overlap import describe_late, late_bucket, unreported
from graders.comm.trace import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS
from graders.judge.checks import fail
from graders.training import assert_history_close
from graders.words.messages import say
from graders.words.text import Text


def _assert_trains_like_one_device(run, case: TrainCase, hint: Text) -> None:
    expected = reference.history(case)
    for rank in case.ranks:
        assert_history_close(run[rank]["history"], expected, who=f"rank {rank}", case=case, hint=hint)


def assert_param_server_trains(run, case: TrainCase) -> None:
    """Every rank's parameters after every step equal single-device training on the global batch."""
    _assert_trains_like_one_device(run, case, say("ch4:param server:hint"))


def assert_ddp_trains(run, case: TrainCase) -> None:
    _assert_trains_like_one_device(run, case, say("ch4:ddp:hint"))


# -- parameter server ----------------------------------------------------------------------------


def assert_load_on_the_server(run, case: TrainCase) -> None:
    """Right values, and every message goes to or comes from the server; workers move at most
    their gradients and the parameters per step."""
    assert_param_server_trains(run, case)
    server, workers = case.ranks[0], case.ranks[1:]
    model_bytes = sum(p.nbytes for p in case.params)
    moved = {rank: run.traces.bytes_sent(rank) + run.traces.bytes_received(rank) for rank in case.ranks}
    worker = max(moved[w] for w in workers)
    ratio = moved[server] / max(worker, 1)
    load = say(
        "ch4:server load",
        workers=len(workers),
        server=server,
        moved=moved[server],
        ratio=ratio,
        worker=worker,
    )
    assert_star(run.traces, case.ranks, server, case, say("ch4:star:hint", load=load))
    _assert_server_exchanges_every_step(run, case, server, workers, load)
    per_step = 2 * model_bytes + 256  # gradients up, parameters down, a little metadata
    assert_traffic_at_most(
        run.traces,
        workers,
        case.steps * per_step,
        case,
        say("ch4:server traffic:hint", per_step=per_step, load=load),
    )


def _assert_server_exchanges_every_step(run, case: TrainCase, server: int, workers, load: Text) -> None:
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
                    say(
                        "ch4:sent to server", worker=worker, step=step, sent=sent, server=server, grads=grads
                    ),
                    case,
                    say("ch4:sent to server:hint", load=load),
                )
            if received < params:
                said = {"worker": worker, "step": step, "received": received, "server": server}
                fail(
                    say("ch4:received from server", **said, params=params),
                    case,
                    say("ch4:received from server:hint", load=load),
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
                layout = reference.describe_buckets(buckets)
                fail(
                    say(
                        "ch4:buckets",
                        rank=rank,
                        step=step,
                        count=len(got),
                        got=got,
                        cap=case.bucket_cap_bytes,
                        buckets=len(buckets),
                        layout=layout,
                    ),
                    case,
                    say("ch4:buckets:hint"),
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
    hint = say("ch4:overlap:hint")
    for rank in case.ranks:
        backwards = run.traces.phase(rank, "backward_end", with_ready=True)
        steps = run.traces.phase(rank, "step_end")
        for step, events in enumerate(backwards, start=1):
            silent = unreported(events, with_grad)
            if silent:
                fail(
                    say("ch4:hooks removed", rank=rank, step=step, names=", ".join(silent)),
                    case,
                    say("ch4:hooks removed:hint"),
                )
            late = late_bucket(events, names, ALL_REDUCES)
            if late is not None:
                late_one = describe_late(late, buckets[late.bucket], "all-reduce")
                fail(
                    say(
                        "ch4:late bucket",
                        rank=rank,
                        step=step,
                        late=late_one,
                        layout=reference.describe_buckets(layout),
                    ),
                    case,
                    hint,
                )
            after = _all_reduces(steps[step - 1]) if step <= len(steps) else []
            if len(after) > incomplete:
                fail(
                    say(
                        "ch4:all-reduce after backward",
                        rank=rank,
                        step=step,
                        count=len(after),
                        most=incomplete,
                    ),
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
                    say("ch4:call inside no_sync", rank=rank, step=step, count=len(events), op=events[0].op),
                    case,
                    say("ch4:call inside no_sync:hint"),
                )
        for step, issued in enumerate(synchronised[1:], start=2):
            if len(issued) != expected:
                fail(
                    say(
                        "ch4:all-reduces after no_sync",
                        rank=rank,
                        step=step,
                        count=len(issued),
                        expected=expected,
                    ),
                    case,
                )
        # Step 1 runs without no_sync: if it overlapped, the steps after no_sync() must too.
        overlapped = [bool(_all_reduces(events)) for events in run.traces.phase(rank, "backward_end")]
        if overlapped and overlapped[0] and not all(overlapped):
            fail(
                say("ch4:no_sync lost overlap", rank=rank, step=overlapped.index(False) + 1),
                case,
                say("ch4:no_sync lost overlap:hint"),
            )


def assert_agrees_with_torch_ddp(run, case: TrainCase) -> None:
    for rank in case.ranks:
        assert_history_close(
            run[rank]["history"],
            run[rank]["torch"],
            who=say("ch4:vs torch ddp", rank=rank),
            case=case,
            hint=say("ch4:ddp:hint"),
        )


# -- sharded data parallelism ----------------------------------------------------------------------


def assert_sharded_trains_like_one_device(run, case: TrainCase) -> None:
    expected = reference.history(case, zero_missing_grads=True)
    frozen = reference.frozen_names(case)
    numel = reference.shard_numel(case)
    layout_hint = say("ch4:fsdp layout:hint")
    shards = {rank: [] for rank in case.ranks}
    for rank in case.ranks:
        history = run[rank]["history"]
        for snapshot in history:
            shard = snapshot["flat_param"]
            if shard is None:
                fail(say("ch4:no flat_param", rank=rank), case, layout_hint)
            if not hasattr(shard, "shape") or tuple(shard.shape) != (numel,):
                got = f"shape {tuple(shard.shape)}" if hasattr(shard, "shape") else shard
                fail(say("ch4:flat_param shape", rank=rank, numel=numel, got=got), case, layout_hint)
            shards[rank].append(shard)
        assert_history_close(
            [snapshot["frozen"] for snapshot in history],
            [{name: step[name] for name in frozen} for step in expected],
            who=say("ch4:frozen parameters", rank=rank),
            case=case,
            hint=say("ch4:frozen parameters:hint"),
        )
    assert_history_close(
        [reference.unflatten([shards[r][k] for r in case.ranks], case) for k in range(case.steps)],
        [{name: t for name, t in step.items() if name not in frozen} for step in expected],
        who=say("ch4:gathered parameters"),
        case=case,
        hint=layout_hint,
    )


def _assert_sharded_step_sends_enough(forward, backward, where: Text, case: TrainCase) -> None:
    """What must be sent in one step: the rank's whole shard to each all-gather (forward, and
    again in backward), and the whole flat gradient to the reduce-scatter."""
    shard_bytes = reference.persistent_bytes_bound(case)[1]
    for phase, events in (("forward", forward), ("backward", backward)):
        gathered = sum(e.nbytes for e in events if e.op in ALL_GATHERS)
        if gathered < shard_bytes:
            fail(
                say(
                    "ch4:gathered too little", where=where, gathered=gathered, phase=phase, shard=shard_bytes
                ),
                case,
                say("ch4:fsdp layout:hint"),
            )
    reduced = sum(e.nbytes for e in backward if e.op in REDUCE_SCATTERS)
    if reduced < trainable_bytes(case):
        fail(
            say("ch4:reduce-scattered too little", where=where, reduced=reduced, total=trainable_bytes(case)),
            case,
            say("ch4:fsdp layout:hint"),
        )


def assert_sharded_traffic(run, case: TrainCase) -> None:
    assert_sharded_trains_like_one_device(run, case)
    shard_bytes = reference.persistent_bytes_bound(case)[1]
    for rank in case.ranks:
        for _, events in run.traces.phases(rank):
            reduced = [e for e in events if e.op in ALL_REDUCES]
            if reduced:
                fail(
                    say("ch4:sharded all-reduce", rank=rank, nbytes=reduced[0].nbytes),
                    case,
                    say("ch4:sharded all-reduce:hint"),
                )
        forwards = run.traces.phase(rank, "forward_end")
        backwards = run.traces.phase(rank, "backward_end")
        for step, (forward, backward) in enumerate(zip(forwards, backwards, strict=False), start=1):
            where = say("ch4:rank step", rank=rank, step=step)
            if not any(e.op in ALL_GATHERS for e in forward):
                fail(
                    say("ch4:no all-gather in forward", where=where),
                    case,
                    say("ch4:no all-gather in forward:hint"),
                )
            if not any(e.op in ALL_GATHERS for e in backward):
                fail(
                    say("ch4:no all-gather in backward", where=where),
                    case,
                    say("ch4:no all-gather in backward:hint"),
                )
            if not any(e.op in REDUCE_SCATTERS for e in backward):
                fail(say("ch4:no reduce-scatter in backward", where=where), case, say("ch4:fsdp layout:hint"))
            _assert_sharded_step_sends_enough(forward, backward, where, case)
            gathered = sum(e.nbytes for e in forward + backward if e.op in ALL_GATHERS)
            if gathered > 2 * shard_bytes:
                fail(say("ch4:gathered too much", where=where, gathered=gathered, shard=shard_bytes), case)
