"""Chapter 7 checks: what a schedule (or a pipeline run) must satisfy, as teaching failures.

Every failure about a schedule shows the schedule as a text timeline (the dependency
simulator's run under unit costs) and attaches the same timeline as a PNG figure, drawn when
a report is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from graders import figures
from graders.chapters.ch7 import timeline, torch_schedules
from graders.chapters.ch7.simulator import (
    Action,
    ScheduleError,
    Simulation,
    completeness_problems,
    ideal_makespan,
    in_flight,
    label,
    local_order_problems,
    normalize,
    simulate,
    warmup_forwards,
)
from graders.checks import fail
from graders.errors import GradingFailure

NAMES = {"gpipe": "GPipe", "1f1b": "1F1B", "interleaved": "interleaved 1F1B"}


def schedule_failure(message: str, case, hint: str = "", sim: Simulation | None = None) -> GradingFailure:
    """A failure whose message ends with the timeline of ``sim`` and which carries it as a PNG."""
    text = f"{message}\nexample: {case!r}"
    if sim is not None:
        text += "\n" + timeline.text(sim)
    exc = GradingFailure(text, hint)
    if sim is not None:
        schedule = sim.schedule
        figures.attach(exc, "timeline", lambda path: timeline.render_timeline_png(schedule, path))
    return exc


def simulated(raw, case, what: str = "your schedule") -> Simulation:
    """Check that ``raw`` is a complete, dependency-respecting, deadlock-free schedule for
    ``case`` and return its simulation (unit costs)."""
    try:
        schedule = normalize(raw, case.p, case.m, case.v)
    except ScheduleError as exc:
        fail(
            f"{what} is not well formed: {exc}",
            case,
            'return a list with one list per stage of ("F"|"B", microbatch) tuples'
            + (' (("F"|"B", microbatch, chunk) when interleaved).' if case.v > 1 else "."),
        )
    problems = completeness_problems(schedule, case.m, case.v)
    if problems:
        fail(
            f"{what} does not run every forward and backward exactly once on every stage:\n  "
            + "\n  ".join(problems),
            case,
            "each stage runs F and B of every microbatch (and chunk) once.",
        )
    problems = local_order_problems(schedule, case.v)
    if problems:
        fail(
            f"{what} breaks a dependency:\n  " + "\n  ".join(problems),
            case,
            "B(s, mb) needs F(s, mb) on the same stage, and the gradient of B(s + 1, mb).",
        )
    sim = simulate(schedule, case.p, case.m, case.v)
    if sim.deadlocked:
        raise schedule_failure(
            f"{what} deadlocks: run with blocking receives, these stages wait for each other forever:\n  "
            + sim.deadlock_report().replace("\n", "\n  "),
            case,
            "a stage can only run F(mb) once the previous stage has run F(mb), and B(mb) once the "
            "next stage has run B(mb): follow the waits above around the cycle.",
            sim,
        )
    return sim


def _letters(actions: Sequence[Action]) -> str:
    return "".join(kind for kind, _, _ in actions)


def assert_makespan(sim: Simulation, name: str, case) -> None:
    want = ideal_makespan(name, case.p, case.m, case.v)
    if sim.makespan != want:
        formula = "2(m + (p - 1) / v)" if name == "interleaved" else "2(m + p - 1)"
        per_chunk = ", 1/v per chunk" if case.v > 1 else ""
        raise schedule_failure(
            f"under unit costs (a forward and a backward each take 1 per stage{per_chunk}) "
            f"your schedule finishes at time {timeline.number(sim.makespan)}; {NAMES[name]} finishes at "
            f"{formula} = {timeline.number(want)}.",
            case,
            "a slower schedule leaves stages idle longer than needed: compare your order with the "
            "timeline above, where the gaps (·) are idle time.",
            sim,
        )


def assert_gpipe_order(sim: Simulation, case) -> None:
    for s, actions in enumerate(sim.schedule):
        letters = _letters(actions)
        if letters != "F" * case.m + "B" * case.m:
            first_b = letters.index("B")
            raise schedule_failure(
                f"stage {s} runs {label(actions[first_b])} (its action {first_b}) before all its forwards: "
                "GPipe runs the forwards of every microbatch, then every backward.",
                case,
                "GPipe flushes the pipeline: all m forwards, then all m backwards, on every stage.",
                sim,
            )


def assert_one_f_one_b_shape(sim: Simulation, case) -> None:
    p, m = case.p, case.m
    for s, actions in enumerate(sim.schedule):
        want = min(p - s - 1, m)
        before = warmup_forwards(actions)  # the warm-up, plus the steady state's first forward
        if before != min(want + 1, m):
            raise schedule_failure(
                f"stage {s} runs {before} forward(s) before its first backward; 1F1B warms up with "
                f"min(p - s - 1, m) = {want} forward(s), and its steady state starts with one more "
                f"forward (when one is left): {min(want + 1, m)} before the first backward.",
                case,
                "stage s must keep the p - s - 1 stages after it busy until the first gradient comes back.",
                sim,
            )
        peak = max(in_flight(actions), default=0)
        if peak > p - s:
            raise schedule_failure(
                f"stage {s} holds the activations of {peak} microbatches at once; 1F1B never holds more "
                f"than p - s = {p - s}.",
                case,
                "after the warm-up every forward is followed by a backward, which frees one microbatch.",
                sim,
            )
        shape = "F" * want + "FB" * (m - want) + "B" * want
        letters = _letters(actions)
        if letters != shape:
            at = next(i for i, (a, b) in enumerate(zip(letters, shape)) if a != b)
            raise schedule_failure(
                f"stage {s} runs {label(actions[at])} (its action {at}) where 1F1B runs "
                f"{'a forward' if shape[at] == 'F' else 'a backward'}: after {want} warm-up forward(s) the "
                "steady state alternates one forward and one backward, then the cool-down runs the "
                "remaining backwards.",
                case,
                f"stage {s}'s pattern is {_short(shape)}.",
                sim,
            )


def _short(letters: str) -> str:
    """F F F B F B B -> F×3 (FB)×... (a readable run-length form)."""
    parts, i = [], 0
    while i < len(letters):
        if letters.startswith("FB", i) and (i + 2 < len(letters) and letters.startswith("FB", i + 2)):
            j = i
            while letters.startswith("FB", j):
                j += 2
            parts.append(f"(FB)×{(j - i) // 2}")
            i = j
            continue
        j = i
        while j < len(letters) and letters[j] == letters[i]:
            j += 1
        parts.append(letters[i] if j - i == 1 else f"{letters[i]}×{j - i}")
        i = j
    return " ".join(parts)


def assert_matches_torch_interleaved(sim: Simulation, case) -> None:
    """The convention the curriculum fixes, compared with ``ScheduleInterleaved1F1B``:

    * on every stage the forwards run in torch's order (depth-first over chunks, in rounds of p
      microbatches), and so do the backwards;
    * no stage holds more chunk-activations at once than it does in torch's schedule.

    How forwards and backwards interleave is otherwise free: the makespan part checks the time.
    """
    reference = torch_schedules.interleaved_1f1b(case.p, case.m, case.v)
    ref_sim = simulate(reference, case.p, case.m, case.v)
    for s, (mine, theirs) in enumerate(zip(sim.schedule, reference)):
        for kind, word in (("F", "forwards"), ("B", "backwards")):
            ours = [a for a in mine if a[0] == kind]
            torch_order = [a for a in theirs if a[0] == kind]
            if ours != torch_order:
                at = next(i for i, (a, b) in enumerate(zip(ours, torch_order)) if a != b)
                raise schedule_failure(
                    f"stage {s} runs its {word} in another order than torch's ScheduleInterleaved1F1B: "
                    f"its {word[:-1]} #{at} is {label(ours[at], case.v)}, torch's is "
                    f"{label(torch_order[at], case.v)}.\n"
                    f"  yours: {_labels(ours, case.v)}\n  torch: {_labels(torch_order, case.v)}\n"
                    "torch's schedule:\n" + timeline.text(ref_sim),
                    case,
                    "interleaving is depth-first: p microbatches go through chunk 0, then the same p "
                    "through chunk 1, ..., then the next p microbatches; backwards visit the chunks "
                    "in reverse.",
                    sim,
                )
        peak, ref_peak = max(in_flight(mine), default=0), max(in_flight(theirs), default=0)
        if peak > ref_peak:
            raise schedule_failure(
                f"stage {s} holds {peak} chunk-activations at once; torch's ScheduleInterleaved1F1B holds "
                f"at most {ref_peak} there.",
                case,
                "warm up with (p - s - 1) * 2 + (v - 1) * p forwards (at most m * v), then alternate.",
                sim,
            )


def _labels(actions: Sequence[Action], v: int, limit: int = 16) -> str:
    names = [label(a, v) for a in actions[:limit]]
    return " ".join(names) + (" …" if len(actions) > limit else "")
