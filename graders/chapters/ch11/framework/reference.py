"""The capstone's references, computed in the driver: single-device training of the case's GPT,
the rank grid, and what each rank of the grid holds and sends.

A rank's coordinates follow Megatron-Core's convention with the default order (tp fastest, then
dp, then pp), as ``RankLayout(tp=, dp=, pp=)`` does.
"""

from __future__ import annotations

from graders.chapters.ch11.framework.cases import TrainCase, single_device_losses

#: the loss of every step (before its update) of the case's GPT trained on one device
losses = single_device_losses


def coords(case: TrainCase, rank: int) -> dict[str, int]:
    return {"tp": rank % case.tp, "dp": rank // case.tp % case.dp, "pp": rank // (case.tp * case.dp)}


def group_of(case: TrainCase, rank: int, dim: str) -> tuple[int, ...]:
    """The ranks that share every coordinate but ``dim`` with ``rank``, in order."""
    mine = coords(case, rank)
    return tuple(
        r
        for r in range(case.world_size)
        if all(coords(case, r)[d] == mine[d] for d in ("tp", "dp", "pp") if d != dim)
    )


def last_stage(case: TrainCase, rank: int) -> bool:
    return coords(case, rank)["pp"] == case.pp - 1


def stage_elements(case: TrainCase, rank: int) -> int:
    """The parameter elements the rank holds: its stage's blocks, their linear layers split over
    tp (a row-parallel layer's bias and the LayerNorms whole), and the embeddings on the first
    stage, the final LayerNorm and the head on the last."""
    h, t, stage = case.hidden, case.tp, coords(case, rank)["pp"]
    attention = 2 * h + (3 * h * h + 3 * h) // t + h * h // t + h
    mlp = 2 * h + (4 * h * h + 4 * h) // t + 4 * h * h // t + h
    total = case.layers // case.pp * (attention + mlp)
    if stage == 0:
        total += (case.vocab + case.seq) * h
    if stage == case.pp - 1:
        total += 2 * h + case.vocab * h
    return total


def activation_bytes(case: TrainCase) -> int:
    """One microbatch's activations ``[seq, micro_batch, hidden]`` in float32."""
    return case.seq * case.micro_batch * case.hidden * 4


def in_flight(case: TrainCase, rank: int) -> int:
    """The microbatches whose activations 1F1B holds at once on the rank's stage: min(pp - stage,
    m) (GPipe holds all m)."""
    return min(case.pp - coords(case, rank)["pp"], case.microbatches)


#: elements one block saves for its backward, per token, generously (an honest block written
#: another way may save more than the reference's, e.g. a LayerNorm by hand): hidden-sized
#: tensors the tp ranks share whole (LayerNorm inputs and outputs, the residual stream)...
SAVED_WHOLE_PER_TOKEN = 6
#: ... hidden-sized tensors split over tp (q, k, v, the heads' output, the MLP's 4h twice) ...
SAVED_SPLIT_PER_TOKEN = 16
#: ... and score-sized tensors per local head (the scores, the softmax, its mask or dropout)
SAVED_SCORES = 3


def microbatch_saved_bytes(case: TrainCase, rank: int) -> int:
    """What one microbatch's forward on the rank's stage may keep for its backward, in float32:
    its blocks (see the constants above), the embeddings' output and input on the first stage,
    the final LayerNorm and the logits with their softmax on the last."""
    tokens, h, stage = case.seq * case.micro_batch, case.hidden, coords(case, rank)["pp"]
    scores = case.micro_batch * (case.heads // case.tp) * case.seq * case.seq
    block = SAVED_WHOLE_PER_TOKEN * tokens * h + SAVED_SPLIT_PER_TOKEN * tokens * h // case.tp
    elements = case.layers // case.pp * (block + SAVED_SCORES * scores)
    if stage == 0:
        elements += 2 * tokens * h
    if stage == case.pp - 1:
        elements += 2 * tokens * h + 3 * tokens * case.vocab
    return 4 * elements


def grid_text(case: TrainCase) -> str:
    """The rank grid: one line per pipeline stage, the tp groups of each dp replica side by side."""
    lines = [f"rank grid (tp={case.tp} × dp={case.dp} × pp={case.pp}; tp innermost):"]
    for stage in range(case.pp):
        replicas = []
        for d in range(case.dp):
            first = stage * case.tp * case.dp + d * case.tp
            replicas.append("[" + " ".join(str(first + t) for t in range(case.tp)) + "]")
        lines.append(f"  stage {stage}: " + "  ".join(replicas) + "   (dp replicas →, tp groups in [ ])")
    return "\n".join(lines)
