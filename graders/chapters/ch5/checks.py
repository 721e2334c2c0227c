"""Chapter 5 judgements of results: training equivalence, the cross-check with torch's
ZeroRedundancyOptimizer, ZeRO-Offload, and the cost model. Memory promises are in
:mod:`.memory`, communication patterns in :mod:`.traffic`. Every failure names the rank and the
example.
"""

from __future__ import annotations

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import OFFLOADS, PAPER_TABLE, CostCase, TrainCase
from graders.judge.checks import assert_number_close, fail
from graders.training import assert_history_close
from graders.training.ledger import render_bars
from graders.words.messages import say
from graders.words.text import Text, each_lang, in_lang


def value_of(run, rank: int, case):
    value = run[rank]
    if not isinstance(value, dict):
        fail(say("ch5:returned nothing", rank=rank), case)
    return value


def assert_trained_like_one_device(
    run, case: TrainCase, hint: Text | None = None, *, last_step_only: bool = False
) -> None:
    """Every group rank ends each step (or the last) with the parameters of one device
    (``hint`` defaults to averaging the gradients over the group)."""
    hint = say("ch5:zero:hint") if hint is None else hint
    skip, zero = reference.histories(case)
    if last_step_only:
        skip, zero = skip[-1:], zero[-1:]
    for rank in case.ranks:
        assert_history_close(
            value_of(run, rank, case)["history"],
            skip,
            who=f"rank {rank}",
            case=case,
            hint=hint,
            also=zero,
            first_step=case.steps if last_step_only else 1,
        )


def assert_zero_result(run, case: TrainCase) -> None:
    """ZeRO-1 and ZeRO-2: the parameters after every step."""
    assert_trained_like_one_device(run, case, say("ch5:zero:hint") + " " + say("ch5:no grad:hint"))


def assert_zero3_result(run, case: TrainCase) -> None:
    """ZeRO-3: the parameters gathered from the shards after the last step."""
    hint = say("ch5:zero3:hint") + " " + say("ch5:no grad:hint")
    assert_trained_like_one_device(run, case, hint, last_step_only=True)


# -- cross-check with torch's ZeroRedundancyOptimizer ------------------------------------------


def assert_matches_torch_zero(run, case: TrainCase) -> None:
    facts = reference.model_facts(case.config)
    with_grad = {facts.names[i] for i in range(len(facts.names)) if facts.gets_grad[i]}

    def keep(history):
        if not isinstance(history, list):
            return history
        return [
            {n: t for n, t in step.items() if n in with_grad} if isinstance(step, dict) else step
            for step in history
        ]

    for rank in case.ranks:
        value = value_of(run, rank, case)
        assert_history_close(
            keep(value["history"]),
            keep(value["torch"]["history"]),
            who=say("ch5:vs torch zero", rank=rank),
            case=case,
            hint=say("ch5:vs torch zero:hint"),
        )
    ours = sum(run[r]["memory"]["state_bytes"] for r in case.ranks)
    theirs = sum(run[r]["torch"]["state_bytes"] for r in case.ranks)
    padding = case.n * facts.shard_elements(case.n) - facts.trained_elements()
    no_grad = sum(facts.numels[i] for i in facts.indices(trained_only=True) if not facts.gets_grad[i])
    tensors = len(facts.indices(trained_only=True))
    allowance = case.optimizer.states_per_element * (padding + no_grad) * facts.itemsize
    allowance += reference.STEP_BYTES * tensors * case.n
    if ours > theirs + allowance:
        yours, torchs = say("ch5:state vs torch:yours"), say("ch5:state vs torch:torch's")
        ledgers = {
            r: {yours: run[r]["memory"]["state_bytes"], torchs: run[r]["torch"]["state_bytes"]}
            for r in case.ranks
        }
        fail(
            say("ch5:state vs torch", ours=ours, theirs=theirs, allowance=allowance)
            + _bars(say("ch5:state vs torch:title", n=case.n), ledgers),
            case,
            say("ch5:state vs torch:hint"),
        )


def _bars(title: Text, ledgers) -> Text:
    """:func:`render_bars` of ``ledgers`` (whose categories are Texts) drawn in every language."""

    def draw(lang: str) -> str:
        in_one = {rank: {in_lang(c, lang): v for c, v in ledger.items()} for rank, ledger in ledgers.items()}
        return in_lang(render_bars(in_lang(title, lang), in_one), lang)

    return each_lang(draw)


# -- ZeRO-Offload ------------------------------------------------------------------------------


def assert_offload_result(run, case) -> None:
    """The bf16 model and the fp32 masters follow mixed-precision training with the same casts."""
    model_history, master_history = reference.mixed_precision(case)
    zero_models, zero_masters = reference.mixed_precision(case, zero_missing_grads=True)
    value = value_of(run, 0, case)
    hint = say("ch5:offload:hint")
    names = reference.trained_names()
    masters = value["masters"]
    for k, got in enumerate(masters):
        if not isinstance(got, list) or len(got) != len(names):
            said = {"step": k + 1, "count": len(got), "n": len(names), "names": ", ".join(names)}
            fail(say("ch5:offload:masters per step", **said), case, hint)
    as_named = [dict(zip(names, step, strict=True)) for step in masters]
    as_expected = [dict(zip(names, step, strict=True)) for step in master_history]
    also = [dict(zip(names, step, strict=True)) for step in zero_masters]
    masters_are = say("ch5:offload:the masters")
    assert_history_close(as_named, as_expected, who=masters_are, case=case, hint=hint, also=also)
    model_is = say("ch5:offload:the model")
    assert_history_close(
        value["history"], model_history, who=model_is, case=case, hint=hint, also=zero_models
    )


def assert_offload_placement(run, case) -> None:
    facts = value_of(run, 0, case)["placement"]
    hint = say("ch5:placement:hint")
    if facts["instances"] == 0 or facts["inner_steps"] < case.steps:
        fail(say("ch5:placement:inner steps", steps=facts["inner_steps"], total=case.steps), case, hint)
    names = reference.trained_names()
    if len(facts["masters"]) != len(names):
        fail(say("ch5:placement:master count", count=len(facts["masters"]), n=len(names)), case, hint)
    host_hint = say("ch5:placement:host:hint")
    for name, master in zip(names, facts["masters"], strict=True):
        where = say("ch5:placement:master of", name=name)
        if master["dtype"] != "float32":
            fail(say("ch5:placement:master dtype", where=where, dtype=master["dtype"]), case, hint)
        if master["where"] != "host":
            fail(say("ch5:placement:master on device", where=where), case, host_hint)
        if master["grad_where"] == "device":
            fail(say("ch5:placement:gradient on device", where=where), case, host_hint)
        if master["shares_model_memory"]:
            fail(say("ch5:placement:shares memory", where=where), case, hint)
    for state in facts["state"]:
        if state["dtype"] != "float32" or state["where"] != "host":
            fail(say("ch5:placement:state", dtype=state["dtype"], where=state["where"]), case, host_hint)
    model = zip(names, facts["model_dtypes"], facts["model_where"], facts["model_in_place"], strict=True)
    for name, dtype, where, in_place in model:
        if dtype != "bfloat16":
            fail(say("ch5:placement:model dtype", name=name, dtype=dtype), case, hint)
        if where != "device":
            fail(say("ch5:placement:model on host", name=name), case, hint)
        if not in_place:
            fail(say("ch5:placement:model not in place", name=name), case, hint)


# -- the cost model ------------------------------------------------------------------------------


def _number(reply: dict, what: Text | str, case, hint: Text) -> float:
    if "raised" in reply:
        fail(say("ch5:cost:raised", what=what, raised=reply["raised"]), case, hint)
    value = reply["value"]
    if not isinstance(value, int | float) or isinstance(value, bool):
        fail(say("expected a number", what=what, got=value), case, hint)
    return value


def _assert_answer(reply: dict, expected, what: tuple[Text, Text], case: CostCase, hint: Text) -> None:
    """A stage that does not exist must raise ValueError; a valid one must give ``expected(case)``.

    ``what`` names the answer twice: briefly, then with its unit for the comparison."""
    if case.stage not in (0, 1, 2, 3):
        if reply.get("raised") != "ValueError":
            fail(say("ch5:cost:no such stage", stage=case.stage, got=reply.get("value")), case)
        return
    value = _number(reply, what[0], case, hint)
    assert_number_close(value, expected(case), what[1], case, hint)


def assert_memory_per_gpu(reply: dict, case: CostCase) -> None:
    what = (say("ch5:cost:memory"), say("ch5:cost:memory unit"))
    _assert_answer(reply, reference.memory_per_gpu, what, case, say("ch5:stage:hint"))


def assert_paper_table(replies: list[dict], reply: dict, case: CostCase) -> None:
    """``replies[i]`` answers the paper's row ``PAPER_TABLE[i]``; ``reply`` answers ``case``."""
    for (stage, printed), row_reply in zip(PAPER_TABLE, replies, strict=True):
        row = paper_row(stage)
        value = _number(row_reply, f"stage {stage}", row, say("ch5:stage:hint"))
        if abs(value - printed) > 0.05:
            fail(say("ch5:cost:paper", printed=printed, stage=stage, value=value), row, say("ch5:stage:hint"))
    assert_memory_per_gpu(reply, case)


def paper_row(stage: int) -> CostCase:
    """The ZeRO paper's example: 7.5B parameters on 64 GPUs, K = 12."""
    return CostCase(stage, 7.5e9, 64)


def assert_comm_volume(reply: dict, case: CostCase) -> None:
    what = (say("ch5:cost:comm"), say("ch5:cost:comm unit"))
    _assert_answer(reply, reference.comm_volume, what, case, say("ch5:comm:hint"))


def assert_offload_tiers(reply: dict, case) -> None:
    """``{"gpu", "cpu", "nvme"}`` in GB for a known offload; ``ValueError`` for any other."""
    hint = say("ch5:tiers:hint")
    if case.offload not in OFFLOADS:
        if reply.get("raised") != "ValueError":
            fail(say("ch5:tiers:no such offload", offload=case.offload, got=reply.get("value")), case, hint)
        return
    if "raised" in reply:
        fail(say("ch5:cost:raised", what=say("ch5:tiers:what"), raised=reply["raised"]), case, hint)
    value = reply["value"]
    if not isinstance(value, dict) or sorted(value) != ["cpu", "gpu", "nvme"]:
        fail(say("ch5:tiers:shape", got=value), case, hint)
    for tier, expected in reference.offload_tiers(case).items():
        got = value[tier]
        if not isinstance(got, int | float) or isinstance(got, bool):
            fail(say("expected a number", what=tier, got=got), case, hint)
        assert_number_close(got, expected, say("ch5:tiers:tier", tier=tier), case, hint)
