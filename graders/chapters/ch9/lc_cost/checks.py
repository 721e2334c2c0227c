"""Chapter 9 judgements on the cost model: each answer against the kit's formula (or the
``ValueError`` an impossible split must raise), and against the bytes measured on the wire when
the kit's Ring Attention and Ulysses ran."""

from __future__ import annotations

from numbers import Real

from graders.chapters.ch9.lc_cost import reference as cost_reference
from graders.judge.checks import describe, fail
from graders.words.messages import say

HINTS = {
    "score_bytes": "ch9:score bytes:hint",
    "ring_comm_bytes": "ch9:ring comm:hint",
    "ulysses_comm_bytes": "ch9:ulysses comm:hint",
}


def _expected(case) -> int:
    if case.function == "score_bytes":
        sizes = (case.method, case.seq, case.heads, case.world, case.block_size, case.bytes_per_element)
        return cost_reference.score_bytes(*sizes)
    formula = getattr(cost_reference, case.function)
    sizes = (case.seq, case.heads, case.head_dim, case.world, case.bytes_per_element)
    return formula(*sizes, backward=case.backward)


def _is_bytes(answer) -> bool:
    return isinstance(answer, Real) and not isinstance(answer, bool) and float(answer).is_integer()


def _judge(answer, expected: int, case, hint) -> None:
    if isinstance(answer, dict) and "value_error" in answer:
        fail(say("ch9:cost unexpected error", error=answer["value_error"]), case, hint)
    if not _is_bytes(answer):
        fail(say("ch9:cost not bytes", got=describe(answer)), case, hint)
    if int(answer) != expected:
        fail(say("ch9:cost wrong", got=int(answer), expected=expected), case, hint)


def assert_cost(run, case) -> None:
    answer, hint = run[0], say(HINTS[case.function])
    if case.invalid:
        if not (isinstance(answer, dict) and "value_error" in answer):
            fail(say("ch9:cost no error", got=describe(answer)), case, say("ch9:cost error:hint"))
        return
    _judge(answer, _expected(case), case, hint)


def assert_measured(run, case) -> None:
    hint = say(HINTS[f"{case.method}_comm_bytes"])
    for row, (forward, training) in zip(case.rows, run[0], strict=True):
        call = (
            f"{case.method}_comm_bytes(seq={row.seq}, heads={row.heads}, head_dim={row.head_dim}, "
            f"world={row.world}, bytes_per_element={row.bytes_per_element}"
        )
        for answer, measured, backward in ((forward, row.forward, False), (training, row.training, True)):
            said = {"call": f"{call}, backward={backward})", "measured": measured, "got": describe(answer)}
            if not (_is_bytes(answer) and int(answer) == measured):
                fail(say("ch9:cost not measured", **said), case, hint)
