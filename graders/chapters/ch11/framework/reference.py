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
