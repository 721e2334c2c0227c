"""Chapter 6 judgements of the blocks: values and every gradient against the single-device
block, one all-reduce each way (an all-gather plus a reduce-scatter under sequence
parallelism), and what sequence parallelism saves for backward."""

from __future__ import annotations

import torch

from graders.chapters.ch6.blocks import reference
from graders.chapters.ch6.blocks.cases import BlockCase
from graders.chapters.ch6.checks import BLOCK_TOLERANCES, ran_backward
from graders.comm.collective_calls import assert_exact_calls
from graders.judge.checks import assert_tensor_equal, fail
from graders.words.messages import say

#: parameter name of the parallel block -> (single-device names, how the ranks' shards combine)
BLOCK_PARAMETERS = {
    "mlp": {
        "ln.weight": (("ln.weight",), "replicated"),
        "ln.bias": (("ln.bias",), "replicated"),
        "fc1.weight": (("fc1.weight",), "rows"),
        "fc1.bias": (("fc1.bias",), "rows"),
        "fc2.weight": (("fc2.weight",), "columns"),
        "fc2.bias": (("fc2.bias",), "replicated"),
    },
    "attention": {
        "ln.weight": (("ln.weight",), "replicated"),
        "ln.bias": (("ln.bias",), "replicated"),
        "qkv.weight": (("q.weight", "k.weight", "v.weight"), "rows"),
        "qkv.bias": (("q.bias", "k.bias", "v.bias"), "rows"),
        "proj.weight": (("proj.weight",), "columns"),
        "proj.bias": (("proj.bias",), "replicated"),
    },
}


def _combined(case: BlockCase, shards: list[torch.Tensor], names, how) -> list[tuple[str, torch.Tensor]]:
    if how == "columns":
        return [(names[0], torch.cat(shards, dim=1))]
    if how == "rows":  # rank r holds [q_r; k_r; v_r] for qkv, its rows of fc1
        parts = [shard.chunk(len(names), dim=0) for shard in shards]
        return [(name, torch.cat([p[k] for p in parts], dim=0)) for k, name in enumerate(names)]
    return [(names[0], torch.stack(shards).sum(0))]


def assert_block(run, case: BlockCase) -> None:
    """Output and input gradient of every rank, and every parameter's gradient, combined from
    the ranks' shards, equal to the single-device block's."""
    full = reference.block(case)
    hint = say("ch6:sequence parallel:hint") if case.sequence_parallel else say(f"ch6:{case.kind}:hint")
    ran_backward(run, case)
    for i, rank in enumerate(case.ranks):
        want_out, want_dx = full["output"], full["input_grad"]
        if case.sequence_parallel:
            want_out, want_dx = want_out.chunk(case.n, 0)[i], want_dx.chunk(case.n, 0)[i]
        for key, want, label in (
            ("output", want_out, "ch6:output"),
            ("input_grad", want_dx, "ch6:input grad"),
        ):
            assert_tensor_equal(
                run[rank][key],
                want,
                what=say(label, rank=rank),
                case=case,
                hint=hint,
                tolerances=BLOCK_TOLERANCES,
            )
    for name, (names, how) in BLOCK_PARAMETERS[case.kind].items():
        shards = []
        for rank in case.ranks:
            grads = run[rank]["grads"]
            if grads.get(name) is None:
                expected = ", ".join(BLOCK_PARAMETERS[case.kind])
                fail(
                    say("ch6:parameter missing", rank=rank, name=name, expected=expected),
                    case,
                    say("ch6:names:hint"),
                )
            shards.append(grads[name])
        if how == "replicated" and not case.sequence_parallel:
            for rank, shard in zip(case.ranks, shards, strict=True):
                assert_tensor_equal(
                    shard,
                    full["grads"][names[0]],
                    what=say("ch6:grad of", rank=rank, name=name),
                    case=case,
                    hint=hint,
                    tolerances=BLOCK_TOLERANCES,
                )
            continue
        for single, combined in _combined(case, shards, names, how):
            what = (
                say("ch6:summed grad", name=single)
                if how == "replicated"
                else say("ch6:combined grad", name=single)
            )
            assert_tensor_equal(
                combined,
                full["grads"][single],
                what=what,
                case=case,
                hint=say("ch6:partial grads:hint") if how == "replicated" else hint,
                tolerances=BLOCK_TOLERANCES,
            )


def block_calls(case: BlockCase) -> tuple[list, list]:
    whole = case.seq * case.batch * case.hidden * case.itemsize
    if not case.sequence_parallel:
        return [("all_reduce", whole)], [("all_reduce", whole)]
    chunk = whole // case.n
    return [("all_gather", chunk), ("reduce_scatter", whole)], [
        ("reduce_scatter", whole),
        ("all_gather", chunk),
    ]


def assert_block_traffic(run, case: BlockCase) -> None:
    assert_block(run, case)
    forward, backward = block_calls(case)
    hint = (
        say("ch6:sequence parallel traffic:hint") if case.sequence_parallel else say("ch6:block traffic:hint")
    )
    assert_exact_calls(
        run.traces, case.ranks, "forward_end", forward, case, hint, direction=say("ch6:forward")
    )
    assert_exact_calls(
        run.traces, case.ranks, "backward_end", backward, case, hint, direction=say("ch6:backward")
    )


#: bytes a measurement may differ by beyond the lesson's promise (a scalar, a few statistics)
MEMORY_SLACK = 64


def assert_sequence_parallel_memory(run, case: BlockCase) -> None:
    """Under sequence parallelism each rank saves for backward less than without it: the
    LayerNorm's input and the dropout's mask shrink by the tensor-parallel size. And without
    it a rank keeps no more than one device does."""
    n, whole = case.n, case.seq * case.batch * case.hidden * case.itemsize
    for rank in case.ranks:
        m = run[rank]
        for meter in ("saved", "kept"):
            if m["tp"][meter] > m["plain"][meter] + MEMORY_SLACK:
                said = {"rank": rank, "meter": meter, "tp": m["tp"][meter], "plain": m["plain"][meter]}
                fail(say("ch6:tp keeps more", **said), case, say("ch6:memory:hint"))
        shrink = {"saved": 2 * whole, "kept": whole}  # LayerNorm input and dropout mask; the mask alone
        for meter, promised in shrink.items():
            limit = m["tp"][meter] - (1 - 1 / n) * promised + MEMORY_SLACK
            if m["sp"][meter] > limit:
                said = {
                    "rank": rank,
                    "meter": meter,
                    "sp": m["sp"][meter],
                    "tp": m["tp"][meter],
                    "limit": int(limit),
                    "n": n,
                }
                fail(say("ch6:sp keeps too much", **said), case, say("ch6:memory:hint"))
