"""Chapter 5 judgements of ZeRO-Infinity: what the drive saw (:mod:`.infinity_tasks`).

The shard of a rank is its chunk of the flat, padded parameters (``ceil(178 / N)`` elements of
the tiny LM); partition k holds elements ``[k·P, min((k+1)·P, shard))`` of it, its files are
named ``part{k}.<what>``. A partition's state is its fp32 master and the optimizer's per-element
states (K of them: 2 for AdamW, 1 for SGD with momentum), 4 bytes each, plus at most
:data:`SCALAR_BYTES` of scalars (AdamW's step counter).
"""

from __future__ import annotations

import re

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import TrainCase, shard_numel
from graders.chapters.ch5.checks import assert_trained_like_one_device, value_of
from graders.judge.checks import fail
from graders.training.memory_promises import LivePromise, assert_live_promises
from graders.words.messages import say

#: bytes of scalars (a step counter or two) a partition may keep beside its per-element state
SCALAR_BYTES = 8
SLACK = reference.LIVE_SLACK_BYTES
_PART = re.compile(r"part(\d+)\.")


def partition_sizes(case: TrainCase) -> list[int]:
    """Elements of each partition of one rank's shard."""
    shard = shard_numel(case.n, case.config)
    size = case.partition_numel
    return [min(size, shard - start) for start in range(0, shard, size)]


def state_bytes(case: TrainCase, elements: int) -> int:
    """Bytes of the master and per-element optimizer state of ``elements`` elements."""
    return 4 * (1 + case.optimizer.states_per_element) * elements


def two_partitions_bytes(case: TrainCase) -> int:
    """The most two consecutive partitions' state may take, scalars included."""
    sizes = partition_sizes(case)
    pairs = [a + b for a, b in zip(sizes, sizes[1:], strict=False)] or sizes
    return state_bytes(case, max(pairs)) + 2 * SCALAR_BYTES


def partition_of(name: str) -> int | None:
    found = _PART.match(name)
    return int(found.group(1)) if found else None


def _drive(run, rank: int, case) -> dict:
    drive = value_of(run, rank, case)["drive"]
    _assert_untampered(drive, case)
    return drive


def _assert_untampered(report: dict, case) -> None:
    if report.get("tampered"):
        fail(say("ch5:infinity:tampered", names=report["tampered"]), case)


def _steps(events: list[dict], step: int) -> list[dict]:
    return [e for e in events if e["step"] == step]


# -- paging: what is on the drive, and what each step reads and writes --------------------------


def assert_paging(run, case: TrainCase) -> None:
    sizes = partition_sizes(case)
    for rank in case.ranks:
        drive = _drive(run, rank, case)
        for step, files in enumerate(drive["on_drive"][1:], start=1):
            _assert_files(files, sizes, case, rank, step)
            events = _steps(drive["events"], step)
            _assert_reads(events, drive["on_drive"][step - 1], case, rank, step)
            _assert_writes(events, files, case, rank, step)


def _assert_files(files: dict[str, int], sizes: list[int], case, rank: int, step: int) -> None:
    stray = sorted(name for name in files if partition_of(name) not in range(len(sizes)))
    if stray:
        fail(
            say("ch5:infinity:stray files", rank=rank, step=step, names=stray[:5], parts=len(sizes)),
            case,
            say("ch5:infinity:names:hint"),
        )
    for k, elements in enumerate(sizes):
        held = sum(size for name, size in files.items() if partition_of(name) == k)
        want = state_bytes(case, elements)
        if not want <= held <= want + SCALAR_BYTES:
            fail(
                say(
                    "ch5:infinity:on drive",
                    rank=rank,
                    step=step,
                    k=k,
                    held=held,
                    want=want,
                    elements=elements,
                    states=case.optimizer.states_per_element,
                ),
                case,
                say("ch5:infinity:on drive:hint"),
            )


def _assert_reads(events: list[dict], on_drive: dict[str, int], case, rank: int, step: int) -> None:
    """Every file read at most once per step; from the second step on, every file exactly once."""
    counts: dict[str, int] = {}
    for event in events:
        if event["op"] == "read":
            counts[event["name"]] = counts.get(event["name"], 0) + 1
    twice = sorted(name for name, count in counts.items() if count > 1)
    if twice:
        fail(
            say("ch5:infinity:read twice", rank=rank, step=step, names=twice[:5]),
            case,
            say("ch5:infinity:reads:hint"),
        )
    unread = sorted(set(on_drive) - set(counts)) if step > 1 else []
    if unread:
        fail(
            say("ch5:infinity:unread", rank=rank, step=step, names=unread[:5]),
            case,
            say("ch5:infinity:reads:hint"),
        )


def _assert_writes(events: list[dict], files: dict[str, int], case, rank: int, step: int) -> None:
    """Every file on the drive after the step was written in it once (directly or renamed onto)."""
    produced: dict[str, int] = {}
    for event in events:
        if event["op"] == "write":
            produced[event["name"]] = produced.get(event["name"], 0) + 1
        elif event["op"] == "replace":
            produced[event["dst"]] = produced.get(event["dst"], 0) + produced.pop(event["name"], 0)
    stale = sorted(name for name in files if produced.get(name, 0) == 0)
    if stale:
        fail(
            say("ch5:infinity:not written back", rank=rank, step=step, names=stale[:5]),
            case,
            say("ch5:infinity:writes:hint"),
        )
    again = sorted(name for name in files if produced.get(name, 0) > 1)
    if again:
        fail(
            say("ch5:infinity:written twice", rank=rank, step=step, names=again[:5]),
            case,
            say("ch5:infinity:writes:hint"),
        )


# -- prefetch: the drive reads partition k+1 while partition k is stepped ------------------------


def assert_prefetch(run, case: TrainCase) -> None:
    parts = len(partition_sizes(case))
    for rank in case.ranks:
        drive = _drive(run, rank, case)
        for step in range(1, case.steps + 1):
            events = _steps(drive["events"], step)
            for k in range(parts - 1):
                _assert_overlap(events, k, case, rank, step)


def _assert_overlap(events: list[dict], k: int, case, rank: int, step: int) -> None:
    computes = [e for e in events if e["op"].startswith("compute") and partition_of(e["name"]) == k]
    begin = next((e["seq"] for e in computes if e["op"] == "compute_begin"), None)
    end = next((e["seq"] for e in computes if e["op"] == "compute_end"), None)
    if begin is None or end is None:
        fail(say("ch5:infinity:no step seen", rank=rank, step=step, k=k), case, say("ch5:infinity:step:hint"))
    first: dict[str, dict] = {}  # a file's first read this step (a second one is paging's business)
    for e in events:
        if e["op"] == "read" and partition_of(e["name"]) == k + 1:
            first.setdefault(e["name"], e)
    reads = list(first.values())
    if not reads:
        fail(
            say("ch5:infinity:next unread", rank=rank, step=step, k=k + 1),
            case,
            say("ch5:infinity:reads:hint"),
        )
    late = [e["name"] for e in reads if not e["is_async"] or e["seq"] > begin]
    if late:
        fail(
            say("ch5:infinity:read late", rank=rank, step=step, k=k, names=late[:3]),
            case,
            say("ch5:infinity:prefetch:hint"),
        )
    early = [e["name"] for e in reads if e["waited"] is not None and e["waited"] < end]
    if early:
        fail(
            say("ch5:infinity:waited early", rank=rank, step=step, k=k, names=early[:3]),
            case,
            say("ch5:infinity:prefetch:hint"),
        )


# -- memory: two partitions at most, and nothing kept from step to step -------------------------


def assert_memory(run, case: TrainCase) -> None:
    limit = two_partitions_bytes(case)
    for rank in case.ranks:
        drive = _drive(run, rank, case)
        for step, peak in sorted((int(s), b) for s, b in drive["resident"].items()):
            if peak > limit:
                fail(
                    say("ch5:infinity:resident", rank=rank, step=step, peak=peak, limit=limit),
                    case,
                    say("ch5:infinity:memory:hint"),
                )
    lives = {rank: value_of(run, rank, case)["live"] for rank in case.ranks}
    assert_live_promises(lives, _promises(case), say("ch5:infinity:memory:title", n=case.n), case)


def _promises(case: TrainCase) -> list[LivePromise]:
    """Between steps the rank keeps two partitions' buffers at most (reused from step to step, or
    none): no copy of the state, no other buffer."""
    limit = two_partitions_bytes(case)
    return [
        LivePromise(
            "kept",
            say("ch5:memory:kept:label"),
            say("ch5:infinity:kept"),
            lambda live: limit + SLACK,
            hint=say("ch5:infinity:memory:hint"),
        )
    ]


# -- crash: a torn write leaves every file whole ---------------------------------------------


def assert_crash_safe(reply: dict, case: TrainCase) -> None:
    _assert_untampered(reply, case)
    torn = sorted(name for name, size in reply["before"].items() if reply["after"].get(name) != size)
    if torn:
        fail(
            say("ch5:infinity:torn", names=torn[:5], raised=reply["raised"] or "-"),
            case,
            say("ch5:infinity:crash:hint"),
        )


# -- ZeRO-3: the optimizer steps the module's shards, with no collective of its own ------------


def assert_composes_with_zero3(run, case: TrainCase) -> None:
    hint = say("ch5:infinity:zero3:hint")
    found = run.traces.collectives()
    if found:
        rank, event = found[0]
        fail(say("ch5:infinity:zero3:collective", rank=rank, op=event.op), case, hint)
    for rank in case.ranks:
        _drive(run, rank, case)  # untampered
    assert_trained_like_one_device(run, case, hint)
