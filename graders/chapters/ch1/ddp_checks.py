"""Chapter 1 judgements of the first DDP script, run by torchrun on two processes.

Each training forward pass is identified by its rows, which are the dataset's examples (every
row distinct), so the grader knows which examples each process fed at each step.

* result: the processes ran the same number of steps, every forward went through torch's
  ``DistributedDataParallel``, and the state dict rank 0 saved equals one process's training on
  the global batches (each step, the union of the two processes' batches);
* shards: per epoch, each process fed its share (``examples / 2``) in batches of
  ``--batch-size`` (the last one shorter), the two shares are disjoint and cover the dataset,
  and each later epoch is shuffled anew (``sampler.set_epoch``);
* rank0: only rank 0 prints (a line per epoch at least) and only rank 0 saves.
"""

from __future__ import annotations

from collections import Counter

from graders.chapters.ch1 import reference
from graders.chapters.ch1.ddp_cases import OUT, PROCESSES
from graders.checks import assert_tensor_equal, fail
from graders.messages import say
from graders.training.history import TRAINING_TOLERANCES

DDP = "DistributedDataParallel"


def _fed(run, case) -> list[list[list[int]]]:
    """Per rank, per training forward pass, the indices of the examples it fed."""
    index = {case.x[i].numpy().tobytes(): i for i in range(case.examples)}
    fed = []
    for rank in range(PROCESSES):
        passes = []
        for _, rows in run[rank]["forwards"]:
            if rows is None or rows.dim() != 2 or rows.shape[1] != case.features:
                fail(say("ch1:ddp rows", rank=rank, got=_shape(rows)), case, say("ch1:ddp rows:hint"))
            found = [index.get(row.numpy().tobytes()) for row in rows.float()]
            if None in found:
                fail(say("ch1:ddp unknown rows", rank=rank), case, say("ch1:ddp rows:hint"))
            passes.append(found)
        fed.append(passes)
    return fed


def _shape(rows) -> str:
    return "nothing" if rows is None else f"shape {tuple(rows.shape)}"


def assert_ddp_result(run, case) -> None:
    fed = _fed(run, case)
    counts = [len(passes) for passes in fed]
    if len(set(counts)) != 1 or not counts[0]:
        fail(say("ch1:ddp steps differ", counts=counts), case, say("ch1:ddp:hint"))
    for rank in range(PROCESSES):
        outer = {name for name, _ in run[rank]["forwards"]}
        if outer != {DDP}:
            fail(say("ch1:ddp not ddp", rank=rank, outer=", ".join(sorted(outer))), case, say("ch1:ddp:hint"))
    saved = run[0]["checkpoint"]
    if saved is None:
        fail(say("ch1:ddp no checkpoint", out=OUT), case, say("ch1:ddp checkpoint:hint"))
    if not isinstance(saved, dict) or set(saved) != set(case.init):
        keys = sorted(saved) if isinstance(saved, dict) else saved
        said = {"got": keys, "expected": sorted(case.init)}
        fail(say("ch1:ddp checkpoint keys", **said), case, say("ch1:ddp checkpoint:hint"))
    steps = [sum((fed[rank][k] for rank in range(PROCESSES)), []) for k in range(counts[0])]
    expected = reference.trained(case, steps)
    for name, tensor in expected.items():
        assert_tensor_equal(
            saved[name],
            tensor,
            what=say("ch1:ddp weight", name=name),
            case=case,
            hint=say("ch1:ddp:hint"),
            tolerances=TRAINING_TOLERANCES,
        )


def assert_shards(run, case) -> None:
    fed = _fed(run, case)
    per_epoch = case.steps_per_epoch
    share = case.examples // PROCESSES
    sizes = [case.batch_size] * (per_epoch - 1) + [share - (per_epoch - 1) * case.batch_size]
    for rank, passes in enumerate(fed):
        if len(passes) != case.epochs * per_epoch:
            said = {
                "rank": rank,
                "got": len(passes),
                "per_epoch": per_epoch,
                "expected": case.epochs * per_epoch,
            }
            fail(say("ch1:shards steps", **said), case, say("ch1:shards:hint"))
        got_sizes = [len(batch) for batch in passes[:per_epoch]]
        if got_sizes != sizes:
            fail(
                say("ch1:shards sizes", rank=rank, got=got_sizes, expected=sizes),
                case,
                say("ch1:shards:hint"),
            )
    for epoch in range(case.epochs):
        window = slice(epoch * per_epoch, (epoch + 1) * per_epoch)
        who = Counter()
        owners: dict[int, list[int]] = {}
        for rank, passes in enumerate(fed):
            for batch in passes[window]:
                for i in batch:
                    who[i] += 1
                    owners.setdefault(i, []).append(rank)
        twice = sorted(i for i, n in who.items() if n > 1)
        if twice:
            said = {"epoch": epoch, "example": twice[0], "ranks": owners[twice[0]], "count": len(twice)}
            fail(say("ch1:shards overlap", **said), case, say("ch1:shards overlap:hint"))
        never = sorted(set(range(case.examples)) - set(who))
        if never:
            fail(say("ch1:shards missing", epoch=epoch, examples=never[:8]), case, say("ch1:shards:hint"))
    orders = [
        [
            [i for batch in passes[e * per_epoch : (e + 1) * per_epoch] for i in batch]
            for e in range(case.epochs)
        ]
        for passes in fed
    ]
    for epoch in range(1, case.epochs):
        if all(order[epoch] == order[0] for order in orders):
            fail(say("ch1:shards set_epoch", epoch=epoch), case, say("ch1:shards set_epoch:hint"))


def assert_rank_zero(run, case) -> None:
    for rank in range(1, PROCESSES):
        printed = run[rank]["printed"].strip()
        if printed:
            said = {"rank": rank, "line": printed.splitlines()[0][:120]}
            fail(say("ch1:rank0 others print", **said), case, say("ch1:rank0:hint"))
        if run[rank]["saves"]:
            fail(
                say("ch1:rank0 others save", rank=rank, files=run[rank]["saves"]), case, say("ch1:rank0:hint")
            )
    lines = [line for line in run[0]["printed"].splitlines() if line.strip()]
    if len(lines) < case.epochs:
        fail(say("ch1:rank0 silent", got=len(lines), epochs=case.epochs), case, say("ch1:rank0:hint"))
    if OUT not in run[0]["saves"]:
        fail(say("ch1:rank0 no save", out=OUT, saves=run[0]["saves"]), case, say("ch1:rank0:hint"))
