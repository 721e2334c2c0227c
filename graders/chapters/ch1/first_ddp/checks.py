"""Chapter 1 judgements of the first DDP script, run by torchrun on two processes.

Each training forward pass is identified by its rows, which are the dataset's examples (every
row distinct), so the grader knows which examples each process fed at each step.

* result: the processes ran the same number of steps, every forward went through torch's
  ``DistributedDataParallel``, and every step all-reduced the whole gradient through it (DDP's
  communication, observed by a hook); the state dict rank 0 saved, and each process's DDP
  replica, equal one process's training on the global batches (each step, the union of the two
  processes' batches);
* shards: per epoch, each process fed its share (``examples / 2``) in batches of
  ``--batch-size`` (the last one shorter), the two shares are disjoint and cover the dataset,
  and each later epoch is shuffled anew (``sampler.set_epoch``);
* rank0: only rank 0 writes to its standard output, a line per epoch holding the epoch's mean
  loss; only rank 0 calls ``torch.save``, and the checkpoint on disk is what it saved.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections import Counter

import torch

from graders.chapters.ch1 import reference
from graders.chapters.ch1.first_ddp.cases import OUT, PROCESSES
from graders.judge.checks import assert_tensor_equal, fail
from graders.training.history import TRAINING_TOLERANCES
from graders.words.messages import say
from graders.words.text import number

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
#: a logged loss matches the epoch's mean within this (a line printed to 3 decimals passes)
LOSS_TOLERANCE = (1e-2, 1e-3)


def _fed(run, case) -> list[list[list[int]]]:
    """Per rank, per training forward pass, the indices of the examples it fed."""
    index = {case.x[i].numpy().tobytes(): i for i in range(case.examples)}
    fed = []
    for rank in range(PROCESSES):
        if not run[rank]["hooks_intact"]:
            fail(say("ch1:ddp hooks removed", rank=rank), case, say("ch1:ddp rows:hint"))
        passes = []
        for _, _, rows in run[rank]["forwards"]:
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


def _steps(run, case) -> list[list[list[int]]]:
    """Per step, each process's batch; after checking the steps went through DDP, every one."""
    fed = _fed(run, case)
    counts = [len(passes) for passes in fed]
    if len(set(counts)) != 1 or not counts[0]:
        fail(say("ch1:ddp steps differ", counts=counts), case, say("ch1:ddp:hint"))
    gradient_bytes = sum(t.numel() * t.element_size() for t in case.init.values())
    for rank in range(PROCESSES):
        outer = {name for ddp, name, _ in run[rank]["forwards"] if not ddp}
        if outer:
            fail(say("ch1:ddp not ddp", rank=rank, outer=", ".join(sorted(outer))), case, say("ch1:ddp:hint"))
        for step, synced in enumerate(run[rank]["synced"]):
            if synced != gradient_bytes:
                said = {"rank": rank, "step": step, "got": synced, "expected": gradient_bytes}
                fail(say("ch1:ddp not synced", **said), case, say("ch1:ddp sync:hint"))
    return [list(step) for step in zip(*fed, strict=True)]


def _checkpoint(run, case) -> dict:
    data = run.files.get(OUT)
    if data is None:
        fail(say("ch1:ddp no checkpoint", out=OUT), case, say("ch1:ddp checkpoint:hint"))
    try:
        saved = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except Exception as exc:  # noqa: BLE001 - whatever the script wrote
        fail(say("ch1:ddp unreadable checkpoint", why=f"{type(exc).__name__}: {str(exc)[:200]}"), case)
    if not isinstance(saved, dict) or set(saved) != set(case.init):
        keys = sorted(saved) if isinstance(saved, dict) else type(saved).__name__
        said = {"got": keys, "expected": sorted(case.init)}
        fail(say("ch1:ddp checkpoint keys", **said), case, say("ch1:ddp checkpoint:hint"))
    return saved


def assert_ddp_result(run, case) -> None:
    expected, _ = reference.trained(case, _steps(run, case))
    weights = {say("ch1:ddp saved"): _checkpoint(run, case)}
    for rank in range(PROCESSES):
        weights[say("ch1:ddp replica", rank=rank)] = run[rank]["replica"] or {}
    for whose, state in weights.items():
        for name, tensor in expected.items():
            assert_tensor_equal(
                state.get(name),
                tensor,
                what=say("ch1:ddp weight", whose=whose, name=name),
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
        [sum(passes[e * per_epoch : (e + 1) * per_epoch], []) for e in range(case.epochs)] for passes in fed
    ]
    for epoch in range(1, case.epochs):
        if all(order[epoch] == order[0] for order in orders):
            fail(say("ch1:shards set_epoch", epoch=epoch), case, say("ch1:shards set_epoch:hint"))


def _epoch_losses(run, case) -> list[tuple[float, ...]]:
    """Per epoch, the mean losses rank 0 can have logged: of its own batches, and (when the ranks
    ran the same steps) of the global ones, computed from what its model returned."""
    fed, losses = _fed(run, case), []
    for k, rows in enumerate(fed[0]):
        outputs = [run[rank]["outputs"][k] if k < len(fed[rank]) else None for rank in range(PROCESSES)]
        own = _mse(outputs[0], rows, case)
        together = [i for rank in range(PROCESSES) if k < len(fed[rank]) for i in fed[rank][k]]
        both = _mse(torch.cat(outputs), together, case) if None not in outputs else None
        losses.append((own, both))
    per = len(losses) // case.epochs if losses and len(losses) % case.epochs == 0 else case.steps_per_epoch
    means = []
    for e in range(case.epochs):
        chunk = losses[e * per : (e + 1) * per]
        if not chunk:
            break
        means.append(
            tuple(sum(v[i] for v in chunk) / len(chunk) for i in (0, 1) if None not in (v[i] for v in chunk))
        )
    return means


def _mse(output, rows: list[int], case) -> float | None:
    if output is None or output.shape != (len(rows), 1):
        return None
    return float(((output.double() - case.y[rows].double()) ** 2).mean())


def _logs(line: str, means: tuple[float, float]) -> bool:
    rtol, atol = LOSS_TOLERANCE
    numbers = [float(n) for n in NUMBER.findall(line)]
    return any(abs(n - m) <= atol + rtol * abs(m) for n in numbers for m in means)


def assert_rank_zero(run, case) -> None:
    for rank in range(1, PROCESSES):
        printed = run[rank]["printed"].strip()
        if printed:
            said = {"rank": rank, "line": printed.splitlines()[0][:120]}
            fail(say("ch1:rank0 others print", **said), case, say("ch1:rank0:hint"))
        if run[rank]["saves"]:
            files = [name for name, _ in run[rank]["saves"]]
            fail(say("ch1:rank0 others save", rank=rank, files=files), case, say("ch1:rank0:hint"))
    lines = [line for line in run[0]["printed"].splitlines() if line.strip()]
    for epoch, means in enumerate(_epoch_losses(run, case)):
        if not any(_logs(line, means) for line in lines):
            said = {
                "epoch": epoch,
                "mean": number(means[1], ".4f"),
                "global": number(means[0], ".4f"),
                "lines": len(lines),
            }
            fail(say("ch1:rank0 silent", **said), case, say("ch1:rank0:hint"))
    data = run.files.get(OUT)
    digest = hashlib.sha256(data).hexdigest() if data is not None else None
    saved = [sha for name, sha in run[0]["saves"] if name == OUT]
    if digest is None or digest not in saved:
        fail(say("ch1:rank0 no save", out=OUT), case, say("ch1:rank0:hint"))
