"""The load-balance picture: how many tokens each expert kept, from each rank.

A table for the failure message (one row per rank, one column per expert, with each rank's
capacity and the tokens it dropped) and stacked bars for the PNG.
(:func:`graders.judge.checks.showing` puts it on whatever failure the checks inside it raise.)
"""

from __future__ import annotations

import torch

from graders.judge import figures
from graders.words.messages import say


def _table(rows: list[list[int]], capacities: list[int], dropped: list[int], labels: list[str]) -> str:
    experts = len(rows[0]) if rows else 0
    head = ["".ljust(8)] + [f"e{e}".rjust(4) for e in range(experts)] + ["   cap", "  drop"]
    lines = ["".join(head)]
    for label, row, cap, drop in zip(labels, rows, capacities, dropped, strict=True):
        lines.append(label.ljust(8) + "".join(f"{v:4d}" for v in row) + f"{cap:6d}{drop:6d}")
    return "\n".join(lines)


def picture(dispatches: list[torch.Tensor], experts_chosen: list[int], labels: list[str]) -> figures.Picture:
    """``dispatches[r]``: rank ``r``'s ``[T, E, C]`` slots; ``experts_chosen[r]``: its ``T · k``."""
    rows = [d.bool().sum(dim=(0, 2)).tolist() for d in dispatches]
    capacities = [d.shape[2] for d in dispatches]
    dropped = [chosen - sum(row) for chosen, row in zip(experts_chosen, rows, strict=True)]
    text = say("ch10:load balance") + "\n" + _table(rows, capacities, dropped, labels)

    def draw(path):
        plt = figures.pyplot()
        experts = len(rows[0])
        fig, ax = plt.subplots(figsize=(max(4.5, 1.5 + 0.5 * experts * len(rows)), 3.4))
        width = 0.8 / len(rows)
        for r, (label, row, cap) in enumerate(zip(labels, rows, capacities, strict=True)):
            offset = (r - (len(rows) - 1) / 2) * width
            bars = ax.bar([e + offset for e in range(experts)], row, width, label=f"{label} (capacity {cap})")
            ax.hlines(cap, -0.5, experts - 0.5, colors=bars.patches[0].get_facecolor(), linestyles="dashed")
        ax.set_xlabel("expert")
        ax.set_ylabel("tokens kept")
        ax.set_xticks(range(experts))
        ax.legend(fontsize="small")
        ax.set_title("tokens kept per expert (dashed: capacity)", fontsize="medium")
        fig.tight_layout()
        return figures.save(fig, path)

    return figures.Picture("load_balance", text, draw)


def router_picture(dispatch: torch.Tensor, chosen: int) -> figures.Picture:
    return picture([dispatch], [chosen], ["tokens"])
