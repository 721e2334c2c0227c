"""Chapter 5 judgements of results: training equivalence, the cross-check with torch's
ZeroRedundancyOptimizer, ZeRO-Offload, and the cost model. Memory promises are in
:mod:`.memory`, communication patterns in :mod:`.traffic`. Every failure names the rank and the
example.
"""

from __future__ import annotations

from graders.chapters.ch5 import reference
from graders.chapters.ch5.cases import PAPER_TABLE, CostCase, TrainCase
from graders.checks import assert_number_close, fail
from graders.training import assert_history_close
from graders.training.ledger import render_bars

NO_GRAD_HINT = (
    "A parameter that gets no gradient may be skipped or stepped with a zero gradient, but "
    "frozen parameters (requires_grad=False) are never updated, and a tied weight is one parameter."
)
ZERO_HINT = "average the gradients over the group (sum, then divide by the group size) before stepping."
ZERO3_HINT = (
    "the gradient of a gathered parameter is reduce-scattered and divided by the group size; "
    "a tied weight is one shard, gathered wherever it is used."
)


def value_of(run, rank: int, case):
    value = run[rank]
    if not isinstance(value, dict):
        fail(f"rank {rank} returned nothing to grade.", case)
    return value


def assert_trained_like_one_device(
    run, case: TrainCase, hint: str = ZERO_HINT, *, last_step_only: bool = False
) -> None:
    """Every group rank ends each step (or the last) with the parameters of one device."""
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
    assert_trained_like_one_device(run, case, ZERO_HINT + " " + NO_GRAD_HINT)


def assert_zero3_result(run, case: TrainCase) -> None:
    """ZeRO-3: the parameters gathered from the shards after the last step."""
    assert_trained_like_one_device(run, case, ZERO3_HINT + " " + NO_GRAD_HINT, last_step_only=True)


# -- cross-check with torch's ZeroRedundancyOptimizer ------------------------------------------


def assert_matches_torch_zero(run, case: TrainCase) -> None:
    facts = reference.model_facts()
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
            who=f"rank {rank}, your Zero1Optimizer vs torch's ZeroRedundancyOptimizer",
            case=case,
            hint="both start from the same model and average the same gradients.",
        )
    ours = sum(run[r]["memory"]["state_bytes"] for r in case.ranks)
    theirs = sum(run[r]["torch"]["state_bytes"] for r in case.ranks)
    padding = case.n * facts.shard_elements(case.n) - facts.trained_elements()
    no_grad = sum(facts.numels[i] for i in facts.indices(trained_only=True) if not facts.gets_grad[i])
    tensors = len(facts.indices(trained_only=True))
    allowance = case.optimizer.states_per_element * (padding + no_grad) * facts.itemsize
    allowance += reference.STEP_BYTES * tensors * case.n
    if ours > theirs + allowance:
        ledgers = {
            r: {
                "your state": run[r]["memory"]["state_bytes"],
                "torch's state": run[r]["torch"]["state_bytes"],
            }
            for r in case.ranks
        }
        fail(
            f"over all ranks your Zero1Optimizer holds {ours} bytes of optimizer state; torch's "
            f"ZeroRedundancyOptimizer holds {theirs} (yours may exceed it by {allowance} for padding "
            "and parameters without gradient). Some state is replicated across ranks.\n"
            + render_bars(f"optimizer state, {case.n} ranks", ledgers),
            case,
            "each element's optimizer state lives on exactly one rank.",
        )


# -- ZeRO-Offload ------------------------------------------------------------------------------


def assert_offload_result(run, case) -> None:
    """The bf16 model and the fp32 masters follow mixed-precision training with the same casts."""
    model_history, master_history = reference.mixed_precision(case)
    zero_models, zero_masters = reference.mixed_precision(case, zero_missing_grads=True)
    value = value_of(run, 0, case)
    hint = (
        "master = param.float() once; each step master.grad = param.grad.float(), step on the "
        "masters, then param.copy_(master)."
    )
    names = reference.trained_names()
    masters = value["masters"]
    for k, got in enumerate(masters):
        if not isinstance(got, list) or len(got) != len(names):
            fail(
                f"after step {k + 1}: the inner optimizer steps {len(got)} tensor(s); expected one fp32 "
                f"master per trained parameter ({len(names)}: {', '.join(names)}), in order.",
                case,
                hint,
            )
    as_named = [dict(zip(names, step, strict=True)) for step in masters]
    as_expected = [dict(zip(names, step, strict=True)) for step in master_history]
    also = [dict(zip(names, step, strict=True)) for step in zero_masters]
    assert_history_close(as_named, as_expected, who="the fp32 masters", case=case, hint=hint, also=also)
    assert_history_close(
        value["history"], model_history, who="the bf16 model", case=case, hint=hint, also=zero_models
    )


def assert_offload_placement(run, case) -> None:
    facts = value_of(run, 0, case)["placement"]
    hint = "the host store holds fp32 copies; the device model stays bf16 and is updated in place."
    if facts["instances"] == 0 or facts["inner_steps"] < case.steps:
        fail(
            f"the optimizer built with optimizer_cls stepped {facts['inner_steps']} time(s) in "
            f"{case.steps} training steps: the step must run in it, on the masters.",
            case,
            hint,
        )
    names = reference.trained_names()
    if len(facts["masters"]) != len(names):
        fail(
            f"the inner optimizer steps {len(facts['masters'])} tensors; expected one master per trained "
            f"parameter ({len(names)}).",
            case,
            hint,
        )
    host_hint = (
        "make each master on the host: p.detach().to(host, torch.float32, copy=True); a copy made next "
        "to the parameter (p.float(), p.clone()) stays on the device. (The graders keep the device and "
        "the host apart even on a machine with only a CPU.)"
    )
    for name, master in zip(names, facts["masters"], strict=True):
        where = f"the master of {name!r}"
        if master["dtype"] != "float32":
            fail(f"{where} is {master['dtype']}; master weights are float32.", case, hint)
        if master["where"] != "host":
            fail(
                f"{where} lives on the device, next to the model; the masters live in the host store.",
                case,
                host_hint,
            )
        if master["grad_where"] == "device":
            fail(
                f"the gradient of {where} is on the device; move each gradient to the host "
                "(p.grad.to(host, torch.float32)) before the step.",
                case,
                host_hint,
            )
        if master["shares_model_memory"]:
            fail(f"{where} shares memory with the model's parameter: it must be a copy.", case, hint)
    for state in facts["state"]:
        if state["dtype"] != "float32" or state["where"] != "host":
            fail(
                f"optimizer state of dtype {state['dtype']} on the {state['where']}: the state of fp32 "
                "masters is fp32 on the host.",
                case,
                host_hint,
            )
    model = zip(names, facts["model_dtypes"], facts["model_where"], facts["model_in_place"], strict=True)
    for name, dtype, where, in_place in model:
        if dtype != "bfloat16":
            fail(
                f"the model's parameter {name!r} became {dtype}; the device model stays bfloat16.", case, hint
            )
        if where != "device":
            fail(
                f"the model's parameter {name!r} moved to the host; the model stays on the device.",
                case,
                hint,
            )
        if not in_place:
            fail(
                f"the model's parameter {name!r} now lives in new memory; copy the master into it in "
                "place (param.copy_(master)) so the device keeps its own buffers.",
                case,
                hint,
            )


# -- the cost model ------------------------------------------------------------------------------

STAGE_HINT = (
    "per parameter: 2 bytes of fp16 weights, 2 of fp16 gradients, K of optimizer state; stage 1 "
    "divides the K bytes by N, stage 2 the gradients too, stage 3 everything."
)
COMM_HINT = (
    "count passes of Φ elements, as the paper does (a ring's (N-1)/N rounded to 1): stages 0-2 "
    "send two per step (2Φ), stage 3 three (parameters gathered in forward and again in backward)."
)


def _number(reply: dict, what: str, case, hint: str) -> float:
    if "raised" in reply:
        fail(f"{what}: raised {reply['raised']} for a valid stage.", case, hint)
    value = reply["value"]
    if not isinstance(value, int | float) or isinstance(value, bool):
        fail(f"{what}: expected a number, got {value!r}.", case, hint)
    return value


def _assert_answer(reply: dict, expected, what: tuple[str, str], case: CostCase, hint: str) -> None:
    """A stage that does not exist must raise ValueError; a valid one must give ``expected(case)``.

    ``what`` names the answer twice: briefly, then with its unit for the comparison."""
    if case.stage not in (0, 1, 2, 3):
        if reply.get("raised") != "ValueError":
            fail(f"stage {case.stage} does not exist: expected ValueError, got {reply.get('value')!r}.", case)
        return
    value = _number(reply, what[0], case, hint)
    assert_number_close(value, expected(case), what[1], case, hint)


def assert_memory_per_gpu(reply: dict, case: CostCase) -> None:
    what = ("GB per GPU", "GB per GPU (1 GB = 1e9 bytes)")
    _assert_answer(reply, reference.memory_per_gpu, what, case, STAGE_HINT)


def assert_paper_table(replies: list[dict], reply: dict, case: CostCase) -> None:
    """``replies[i]`` answers the paper's row ``PAPER_TABLE[i]``; ``reply`` answers ``case``."""
    for (stage, printed), row_reply in zip(PAPER_TABLE, replies, strict=True):
        row = paper_row(stage)
        value = _number(row_reply, f"stage {stage}", row, STAGE_HINT)
        if abs(value - printed) > 0.05:
            fail(
                f"the ZeRO paper gives {printed} GB per GPU for stage {stage} (7.5B parameters, 64 GPUs, "
                f"K = 12); your function gives {value!r}.",
                row,
                STAGE_HINT,
            )
    assert_memory_per_gpu(reply, case)


def paper_row(stage: int) -> CostCase:
    """The ZeRO paper's example: 7.5B parameters on 64 GPUs, K = 12."""
    return CostCase(stage, 7.5e9, 64)


def assert_comm_volume(reply: dict, case: CostCase) -> None:
    what = ("elements sent per GPU", "elements sent per GPU per step")
    _assert_answer(reply, reference.comm_volume, what, case, COMM_HINT)
