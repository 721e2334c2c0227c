"""What code written by hand computes, bounded by what its math needs.

A "by hand" exercise's worker reports, per direction, the multiply-adds of every matrix product
graded code ran and the largest tensor an operator made
(:class:`graders.comm.hand_written.HandWrittenMath`). A chapter states what the lesson's math
needs (:class:`Work`): a row layer's backward is two products of the layer's own shapes, a
conjugate mapping none. A Jacobian, however it is built, costs a product or a tensor as large as
the layer times its outputs: far past either bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from graders.judge.checks import fail
from graders.words.messages import say
from graders.words.text import Text, each_lang
from graders.words.vocabulary import t


@dataclass(frozen=True)
class Work:
    """The most a direction may compute: multiply-adds in matrix products, the elements of the
    largest tensor it makes, and what those are, said (for the message)."""

    macs: int
    largest: int
    needs: Text | str


def assert_work_within(report: dict, direction: str, bound: Work, *, rank: int, case, hint) -> None:
    """``report`` (a rank's ``ctx.hand_written()``) did no more in ``direction`` than ``bound``."""
    done = report.get(direction, {})
    named = each_lang(lambda lang: t(f"direction:{direction}", lang))
    said = {"rank": rank, "direction": named, "needs": bound.needs}
    macs, largest = done.get("macs", 0), done.get("largest", 0)
    if macs > bound.macs:
        fail(say("arithmetic:macs", got=macs, bound=bound.macs, **said), case, hint)
    if largest > bound.largest:
        fail(say("arithmetic:largest", got=largest, bound=bound.largest, **said), case, hint)


def recorded_ops(report: dict) -> str:
    """The computing operations autograd recorded for graded code (a graph built on the side),
    named, or "" when there were none."""
    return ", ".join(report.get("recorded") or [])
