"""The capstone's judgements.

* **result**: on every rank of the last pipeline stage, the loss of each of the case's steps equals
  single-device training's (within ``LOSS_TOLERANCE``); the other ranks return ``None``; no rank
  changed the state it was handed. A failure shows the rank grid and the loss curves.
* **traffic**, per step and rank, from the trace: point-to-point messages go to the neighbouring
  stages only, exactly ``microbatches`` activations forward and as many gradients back per
  boundary; the tp group carries exactly one all-reduce of a microbatch's activations per block
  half and direction; the dp group carries between a reduce-scatter plus an all-gather and an
  all-reduce plus an all-gather of the rank's parameters, in reduce-scatters and all-gathers only
  (ZeRO-1); nothing else goes anywhere but scalars. The optimizer each rank builds from the
  ``optimizer_cls`` it is handed (counted by the kit) holds and steps a 1/dp share of its stage,
  and the shards of a dp group cover the stage.
* **memory**: what a rank keeps alive between steps is at most its own stage's shard of the
  model, its gradients, one flat copy of them, and a 1/dp share of the optimizer state; at its
  peak, besides, the activations of the microbatches 1F1B holds on its stage (min(pp − stage, m),
  where GPipe holds all m), one more in the making, and the first stage's inputs of the step.
"""

from __future__ import annotations

import math

from graders.chapters.ch11.framework import reference as training
from graders.chapters.ch11.framework.cases import LOSS_TOLERANCE
from graders.comm import assertions
from graders.comm.trace import ALL_GATHERS, ALL_REDUCES, REDUCE_SCATTERS
from graders.comm.volume import ring_bytes_sent
from graders.judge import figures
from graders.judge.checks import fail
from graders.judge.figures import Picture
from graders.judge.schedule_order import assert_follows_schedule, one_f_one_b_row
from graders.words.messages import say
from graders.words.text import number

#: a collective this small is bookkeeping (the loss, a step counter): it may go to any group
SCALAR_BYTES = 16
#: what ZeRO-1 runs on the dp group: a reduce-scatter of the gradients, an all-gather of the
#: parameters (an all-reduce, the whole optimizer on every replica, is plain data parallelism)
ZERO1_OPS = frozenset(REDUCE_SCATTERS + ALL_GATHERS)
#: parameter tensors of one block (attention: 2 LayerNorm, 6 q/k/v, 2 proj; MLP: 2, 2, 2) and of
#: the first and last stages' own (2 embeddings; LayerNorm and head): each may pad its own shard
TENSORS_PER_BLOCK, TENSORS_AT_THE_ENDS = 16, 5
#: per-step state elements of each optimizer, per trained element
STATE_PER_ELEMENT = {"sgd": 1, "adamw": 2}
#: small tensors a trainer may keep besides (losses, step counters, schedules)
MEMORY_SLACK = 8 * 1024


def _picture(run, case) -> Picture:
    reference = training.losses(case)
    last = [r for r in case.ranks if training.last_stage(case, r)]
    rows = [f"step {i}: single device {ref:.6f}" for i, ref in enumerate(reference)]
    for rank in last:
        got = run[rank]["losses"] if isinstance(run[rank], dict) else None
        if isinstance(got, list):
            for i, value in enumerate(got[: len(rows)]):
                rows[i] += (
                    f", rank {rank} {value:.6f}" if isinstance(value, float) else f", rank {rank} {value!r}"
                )
    text = training.grid_text(case) + "\n" + "\n".join(rows)

    def draw(path):
        plt = figures.pyplot()
        fig, (grid, curves) = plt.subplots(1, 2, figsize=(11, 4))
        _draw_grid(grid, case)
        curves.plot(reference, "k-", linewidth=3, label="single device")
        for rank in last:
            got = run[rank]["losses"] if isinstance(run[rank], dict) else None
            points = [(i, v) for i, v in enumerate(got or []) if isinstance(v, float)]
            if points:
                curves.plot(*zip(*points, strict=True), "o--", label=f"rank {rank}")
        curves.set_xlabel("step")
        curves.set_ylabel("loss")
        curves.legend()
        figures.save(fig, path)

    return Picture("loss-curves", text, draw)


def _draw_grid(ax, case) -> None:
    """Ranks as boxes: pipeline stages down, dp replicas across, each tp group side by side."""
    for rank in case.ranks:
        c = training.coords(case, rank)
        x, y = c["dp"] * (case.tp + 1) + c["tp"], case.pp - 1 - c["pp"]
        ax.add_patch(figures_rectangle(x, y, c["tp"]))
        ax.text(x + 0.45, y + 0.45, str(rank), ha="center", va="center")
    ax.set_xlim(-0.5, case.dp * (case.tp + 1))
    ax.set_ylim(-0.5, case.pp + 0.5)
    ax.set_title(f"tp={case.tp} × dp={case.dp} × pp={case.pp}")
    ax.set_xticks([d * (case.tp + 1) + (case.tp - 1) / 2 + 0.45 for d in range(case.dp)])
    ax.set_xticklabels([f"dp {d}" for d in range(case.dp)])
    ax.set_yticks([case.pp - 1 - s + 0.45 for s in range(case.pp)])
    ax.set_yticklabels([f"stage {s}" for s in range(case.pp)])


def figures_rectangle(x: float, y: float, tp_rank: int):
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), 0.9, 0.9, color=f"C{tp_rank}", alpha=0.35)


# -- result ---------------------------------------------------------------------------------------


def assert_losses(run, case) -> None:
    picture = _picture(run, case)
    reference = training.losses(case)
    for rank in case.ranks:
        got = run[rank]
        if not got["unchanged"]:
            fail(say("ch11:state changed", rank=rank), case, say("ch11:state changed:hint"))
        if not training.last_stage(case, rank):
            if any(loss is not None for loss in got["losses"]):
                said = {"rank": rank, "stage": training.coords(case, rank)["pp"], "got": got["losses"][:3]}
                fail(say("ch11:loss off the last stage", **said), case, say("ch11:losses:hint"))
            continue
        for step, (value, expected) in enumerate(zip(got["losses"], reference, strict=True)):
            if not isinstance(value, float | int) or isinstance(value, bool):
                said = {"rank": rank, "step": step, "got": repr(value)}
                fail(say("ch11:loss not a number", **said), case, say("ch11:losses:hint"), picture=picture)
            if math.isnan(value):
                said = {"rank": rank, "step": step}
                fail(say("ch11:loss nan", **said), case, say("ch11:loss nan:hint"), picture=picture)
            if not math.isclose(value, expected, **LOSS_TOLERANCE):
                said = {
                    "rank": rank,
                    "step": step,
                    "got": number(value, ".6f"),
                    "expected": number(expected, ".6f"),
                }
                fail(say("ch11:loss curve", **said), case, _loss_hint(step), picture=picture)


def _loss_hint(step: int):
    """A first step already wrong is the model or the data; a later one, the update."""
    return say("ch11:first loss:hint") if step == 0 else say("ch11:losses:hint")


# -- traffic --------------------------------------------------------------------------------------


def assert_traffic(run, case) -> None:
    assert_zero1_shards(run, case)
    traces = run.traces
    for rank in case.ranks:
        steps = traces.phase(rank, "step_end")
        for step, events in enumerate(steps):
            _assert_pipeline_messages(traces, case, rank, step, events)
            _assert_collectives(traces, case, rank, step, events)


def _assert_pipeline_messages(traces, case, rank: int, step: int, events) -> None:
    pp_group, stage = training.group_of(case, rank, "pp"), training.coords(case, rank)["pp"]
    neighbours = {}
    if stage + 1 < case.pp:
        neighbours[pp_group[stage + 1]] = "forward"
    if stage > 0:
        neighbours[pp_group[stage - 1]] = "backward"
    sends = [e for e in events if e.is_send and e.nbytes > 0]
    for event in sends:
        if event.peer not in neighbours:
            said = {"rank": rank, "step": step, "peer": event.peer, "neighbours": sorted(neighbours)}
            assertions.fail(
                traces, say("ch11:send off the pipeline", **said), case, say("ch11:pipeline:hint")
            )
    size = training.activation_bytes(case)
    for peer, direction in neighbours.items():
        to_peer = [e.nbytes for e in sends if e.peer == peer]
        if to_peer != [size] * case.microbatches:
            said = {
                "rank": rank,
                "step": step,
                "peer": peer,
                "direction": direction,
                "got": to_peer,
                "count": case.microbatches,
                "size": size,
            }
            assertions.fail(traces, say("ch11:pipeline messages", **said), case, say("ch11:pipeline:hint"))


def _assert_collectives(traces, case, rank: int, step: int, events) -> None:
    tp_group, dp_group = training.group_of(case, rank, "tp"), training.group_of(case, rank, "dp")
    wire = {tp_group: 0.0, dp_group: 0.0}
    tp_all_reduces = 0
    for event in events:
        if event.is_p2p or event.is_mark or event.is_ready or event.nbytes <= SCALAR_BYTES:
            continue
        if len(event.group) < 2:
            continue  # a group of one: nothing travels
        if event.group not in wire:
            said = {"rank": rank, "step": step, "op": event.op, "group": list(event.group)}
            assertions.fail(
                traces, say("ch11:collective elsewhere", **said), case, say("ch11:groups used:hint")
            )
        wire[event.group] += ring_bytes_sent(event)
        if event.group == tp_group and event.op in ALL_REDUCES:
            tp_all_reduces += 1
        if event.group == dp_group and event.op not in ZERO1_OPS:
            said = {"rank": rank, "step": step, "op": event.op, "nbytes": event.nbytes}
            assertions.fail(traces, say("ch11:dp op", **said), case, say("ch11:dp op:hint"))
    if len(tp_group) > 1:
        _assert_tp_traffic(traces, case, rank, step, wire[tp_group], tp_all_reduces)
    if len(dp_group) > 1:
        _assert_dp_traffic(traces, case, rank, step, wire[dp_group], len(dp_group))


def _assert_tp_traffic(traces, case, rank: int, step: int, sent: float, all_reduces: int) -> None:
    n, size = case.tp, training.activation_bytes(case)
    count = 4 * (case.layers // case.pp) * case.microbatches
    expected = count * 2 * (n - 1) / n * size
    if all_reduces != count or not math.isclose(sent, expected, rel_tol=1e-9):
        said = {
            "rank": rank,
            "step": step,
            "count": count,
            "size": size,
            "got": all_reduces,
            "sent": int(sent),
            "expected": int(expected),
        }
        assertions.fail(traces, say("ch11:tp traffic", **said), case, say("ch11:tp traffic:hint"))


def most_owned(case, rank: int) -> int:
    """The most elements a rank's ZeRO-1 shard may hold: a 1/dp share of the stage's parameters,
    each parameter tensor padded to a multiple of dp at worst."""
    elements = training.stage_elements(case, rank)
    tensors = TENSORS_PER_BLOCK * (case.layers // case.pp) + TENSORS_AT_THE_ENDS
    return math.ceil(elements / case.dp) + tensors * (case.dp - 1)


def assert_zero1_shards(run, case) -> None:
    """The optimizer a rank builds (``optimizer_cls``, counted by the kit) holds and steps one
    share of the stage: at most :func:`most_owned` elements on each rank, and together, over a
    dp group, at least the whole stage, at every step."""
    for rank in case.ranks:
        built, stepped = run[rank]["optimized"]["built"], run[rank]["optimized"]["stepped"]
        most, elements = most_owned(case, rank), training.stage_elements(case, rank)
        for got in (sum(built), *stepped):
            if got > most:
                said = {"rank": rank, "got": got, "dp": case.dp, "most": most, "elements": elements}
                fail(say("ch11:optimizer share", **said), case, say("ch11:optimizer share:hint"))
        group = training.group_of(case, rank, "dp")
        for step in range(case.steps):
            together = sum(_stepped_at(run[r], step) for r in group)
            if together < elements:
                said = {"ranks": list(group), "step": step, "got": together, "elements": elements}
                fail(say("ch11:optimizer cover", **said), case, say("ch11:optimizer share:hint"))


def _stepped_at(reply, step: int) -> int:
    stepped = reply["optimized"]["stepped"]
    return stepped[step] if step < len(stepped) else 0


def _assert_dp_traffic(traces, case, rank: int, step: int, sent: float, n: int) -> None:
    elements = training.stage_elements(case, rank)
    least = 2 * (n - 1) / n * elements * 4  # a reduce-scatter and an all-gather
    most = 3 * (n - 1) / n * (elements + n * 4 * case.layers + 4 * n) * 4  # an all-reduce besides, padded
    if not least - 1 <= sent <= most:
        said = {"rank": rank, "step": step, "sent": int(sent), "least": int(least), "most": int(most)}
        assertions.fail(traces, say("ch11:dp traffic", **said), case, say("ch11:dp traffic:hint"))


# -- memory ---------------------------------------------------------------------------------------


def memory_limit(case, rank: int) -> int:
    """The stage's parameters, their gradients and one flat copy, then this rank's 1/dp share of
    them with its gradient and the optimizer state, in float32, plus a little."""
    elements = training.stage_elements(case, rank)
    share = math.ceil(elements / case.dp) + 16
    return 4 * (3 * elements + (2 + STATE_PER_ELEMENT[case.optimizer]) * share) + MEMORY_SLACK


def peak_limit(case, rank: int) -> int:
    """:func:`memory_limit`, and the activations of the microbatches in flight under 1F1B plus the
    one being computed (:func:`~reference.microbatch_saved_bytes` each), on the first stage the
    step's inputs made ahead (the embeddings' output of every microbatch), and a second flat copy
    of the stage's parameters while the step's all-gather lands (the small models' slack hides it,
    a wider one does not)."""
    tokens = case.seq * case.micro_batch
    ahead = 4 * case.microbatches * tokens * case.hidden if training.coords(case, rank)["pp"] == 0 else 0
    saved = (training.in_flight(case, rank) + 1) * training.microbatch_saved_bytes(case, rank)
    landing = 4 * training.stage_elements(case, rank)
    return memory_limit(case, rank) + saved + ahead + landing


def assert_memory(run, case) -> None:
    """Between steps at most :func:`memory_limit`, and at least the stage's own parameters (a rank
    that keeps less holds them where the ledger cannot see: the kit's own tensors, changed in
    place); at the peak of the run at most :func:`peak_limit`."""
    for rank in case.ranks:
        kept, limit = run[rank]["kept"], memory_limit(case, rank)
        least = 4 * training.stage_elements(case, rank)
        if kept < least:
            said = {"rank": rank, "kept": kept, "least": least}
            fail(say("ch11:memory too little", **said), case, say("ch11:memory kept:hint"))
        if kept > limit:
            said = {
                "rank": rank,
                "kept": kept,
                "limit": limit,
                "elements": training.stage_elements(case, rank),
            }
            fail(say("ch11:memory kept", **said), case, say("ch11:memory kept:hint"))
    for rank in case.ranks:
        peak, limit = run[rank]["peak"], peak_limit(case, rank)
        if peak > limit:
            said = {
                "rank": rank,
                "peak": peak,
                "limit": limit,
                "stage": training.coords(case, rank)["pp"],
                "in_flight": training.in_flight(case, rank),
                "microbatches": case.microbatches,
            }
            fail(say("ch11:memory peak", **said), case, say("ch11:memory peak:hint"))
    assert_blocks_run_1f1b(run, case)


def assert_blocks_run_1f1b(run, case) -> None:
    """Every attention block of a stage runs the stage's 1F1B order, step after step: each
    microbatch's forward once, its backward after it, the 1F1B number of microbatches in flight."""
    hint = say("ch11:1f1b order:hint")
    for rank in case.ranks:
        blocks = run[rank]["blocks"]
        stage = training.coords(case, rank)["pp"]
        if len(blocks) != case.layers // case.pp:
            said = {"rank": rank, "found": len(blocks), "layers": case.layers // case.pp}
            fail(say("ch11:blocks not found", **said), case, hint)
        row = one_f_one_b_row(case.pp, case.microbatches, stage) * case.steps
        for i, record in enumerate(blocks):
            who = say("ch11:block of rank", rank=rank, block=i, stage=stage)
            assert_follows_schedule(record, row, who=who, case=case, hint=hint)
