"""Chapter 7 checks: what a schedule, or a real pipeline run, must satisfy, as teaching failures.

Every failure about a schedule shows the schedule as a text timeline (the dependency
simulator's run under unit costs) and attaches the same timeline as a PNG figure, drawn when
a report is written. A pipeline run is checked on its gradients, the activations its stages
kept alive, and the messages they sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from graders.chapters.ch7 import cases, reference, timeline
from graders.chapters.ch7.simulator import (
    Action,
    ScheduleError,
    Simulation,
    completeness_problems,
    ideal_makespan,
    in_flight,
    label,
    local_order_problems,
    message_order_problems,
    normalize,
    simulate,
    warmup_forwards,
)
from graders.errors import GradingFailure
from graders.judge import figures
from graders.judge.checks import assert_number_close, assert_tensor_equal, fail
from graders.judge.schedule_order import assert_follows_schedule
from graders.words.messages import say
from graders.words.text import Text, join

NAMES = {"gpipe": "GPipe", "1f1b": "1F1B", "interleaved": "interleaved 1F1B"}


def schedule_failure(
    message: Text, case, hint: Text | str = "", sim: Simulation | None = None
) -> GradingFailure:
    """A failure whose message ends with the timeline of ``sim`` and which carries it as a PNG."""
    picture = timeline.text(sim) if sim is not None else ""
    exc = GradingFailure(message, hint, example=repr(case), picture=picture)
    if sim is not None:
        schedule = sim.schedule
        figures.attach(exc, "timeline", lambda path: timeline.render_timeline_png(schedule, path))
    return exc


def simulated(raw, case, what: Text | None = None, *, deadlock_ok: bool = False) -> Simulation:
    """Check that ``raw`` is a complete, dependency-respecting schedule for ``case`` whose
    messages arrive in the order they are needed, and (unless ``deadlock_ok``) deadlock-free;
    return its simulation (unit costs). ``what`` names the schedule (default: "your schedule")."""
    what = what or say("ch7:your schedule")
    try:
        schedule = normalize(raw, case.p, case.m, case.v)
    except ScheduleError as exc:
        hint = say("ch7:not well formed:hint chunks") if case.v > 1 else say("ch7:not well formed:hint")
        fail(say("ch7:not well formed", what=what, problem=exc.message), case, hint)
    problems = completeness_problems(schedule, case.m, case.v)
    if problems:
        fail(
            say("ch7:incomplete", what=what, problems=join("\n  ", problems)),
            case,
            say("ch7:incomplete:hint"),
        )
    problems = local_order_problems(schedule, case.v)
    if problems:
        fail(
            say("ch7:dependency", what=what, problems=join("\n  ", problems)),
            case,
            say("ch7:dependency:hint"),
        )
    problems = message_order_problems(schedule, case.p, case.v)
    if problems:
        message = say("ch7:point to point", what=what, problems=join("\n  ", problems))
        fail(message, case, say("ch7:point to point:hint"))
    sim = simulate(schedule, case.p, case.m, case.v)
    if sim.deadlocked and not deadlock_ok:
        raise schedule_failure(
            say("ch7:deadlock", what=what, waits=sim.deadlock_report(indent="  ")),
            case,
            say("ch7:deadlock:hint"),
            sim,
        )
    return sim


def _letters(actions: Sequence[Action]) -> str:
    return "".join(kind for kind, _, _ in actions)


def assert_makespan(sim: Simulation, name: str, case) -> None:
    want = ideal_makespan(name, case.p, case.m, case.v)
    if sim.makespan != want:
        formula = "2(m + (p - 1) / v)" if name == "interleaved" else "2(m + p - 1)"
        per_chunk = say("ch7:makespan:per chunk") if case.v > 1 else ""
        times = {"got": timeline.number(sim.makespan), "want": timeline.number(want)}
        raise schedule_failure(
            say("ch7:makespan", per_chunk=per_chunk, name=NAMES[name], formula=formula, **times),
            case,
            say("ch7:makespan:hint"),
            sim,
        )


def assert_gpipe_order(sim: Simulation, case) -> None:
    for s, actions in enumerate(sim.schedule):
        letters = _letters(actions)
        if letters != "F" * case.m + "B" * case.m:
            first_b = letters.index("B")
            raise schedule_failure(
                say("ch7:gpipe order", s=s, action=label(actions[first_b]), i=first_b),
                case,
                say("ch7:gpipe order:hint"),
                sim,
            )


def assert_one_f_one_b_shape(sim: Simulation, case) -> None:
    p, m = case.p, case.m
    for s, actions in enumerate(sim.schedule):
        want = min(p - s - 1, m)
        before = warmup_forwards(actions)  # the warm-up, plus the steady state's first forward
        if before != min(want + 1, m):
            raise schedule_failure(
                say("ch7:warmup", s=s, before=before, want=want, total=min(want + 1, m)),
                case,
                say("ch7:warmup:hint"),
                sim,
            )
        peak = max(in_flight(actions), default=0)
        if peak > p - s:
            raise schedule_failure(
                say("ch7:1f1b peak", s=s, peak=peak, bound=p - s), case, say("ch7:1f1b peak:hint"), sim
            )
        shape = "F" * want + "FB" * (m - want) + "B" * want
        letters = _letters(actions)
        if letters != shape:
            at = next(i for i, (a, b) in enumerate(zip(letters, shape)) if a != b)
            expected = say("ch7:a forward") if shape[at] == "F" else say("ch7:a backward")
            raise schedule_failure(
                say("ch7:alternation", s=s, action=label(actions[at]), i=at, expected=expected, want=want),
                case,
                say("ch7:alternation:hint", s=s, pattern=_short(shape)),
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


def _interleaved_reference(case) -> tuple[Text | str, list[list[Action]], list[int]]:
    """(name, order, in-flight bound per stage) an interleaved schedule is compared with: with
    one chunk, 1F1B (chunk 0 everywhere, at most p - s in flight); with more, torch's
    ``ScheduleInterleaved1F1B`` and its peak on every stage."""
    if case.v == 1:
        order = [[(kind, mb, 0) for kind, mb in row] for row in cases.one_f_one_b_order(case.p, case.m)]
        return "1F1B", order, [case.p - s for s in range(case.p)]
    order = reference.interleaved_1f1b(case.p, case.m, case.v)
    return say("ch7:torch interleaved"), order, [max(in_flight(row), default=0) for row in order]


def assert_matches_torch_interleaved(sim: Simulation, case) -> None:
    """The convention the curriculum fixes, compared with ``ScheduleInterleaved1F1B`` (with one
    chunk, with 1F1B):

    * on every stage the forwards run in the reference's order (depth-first over chunks, in
      rounds of p microbatches), and so do the backwards;
    * no stage holds more chunk-activations at once than the reference's bound: p - s with one
      chunk, torch's peak on that stage with more.

    How forwards and backwards interleave is otherwise free: the makespan part checks the time.
    """
    name, order, bounds = _interleaved_reference(case)
    ref_sim = simulate(order, case.p, case.m, case.v)
    for s, (mine, theirs) in enumerate(zip(sim.schedule, order)):
        for kind, word, one in (
            ("F", say("ch7:forwards"), "forward"),
            ("B", say("ch7:backwards"), "backward"),
        ):
            ours = [a for a in mine if a[0] == kind]
            wanted = [a for a in theirs if a[0] == kind]
            if ours != wanted:
                at = next(i for i, (a, b) in enumerate(zip(ours, wanted)) if a != b)
                message = say(
                    "ch7:interleaved order",
                    s=s,
                    word=word,
                    name=name,
                    one=one,
                    at=at,
                    mine=label(ours[at], case.v),
                    theirs=label(wanted[at], case.v),
                    ours=_labels(ours, case.v),
                    wanted=_labels(wanted, case.v),
                )
                hint = say("ch7:interleaved order:hint")
                raise schedule_failure(message + timeline.text(ref_sim), case, hint, sim)
        peak = max(in_flight(mine), default=0)
        if peak > bounds[s]:
            if case.v == 1:
                message = say("ch7:interleaved peak one chunk", s=s, peak=peak, name=name, bound=bounds[s])
                hint = say("ch7:interleaved peak one chunk:hint")
            else:
                message = say("ch7:interleaved peak", s=s, peak=peak, name=name, bound=bounds[s])
                hint = say("ch7:interleaved peak:hint")
            raise schedule_failure(message, case, hint, sim)


def _labels(actions: Sequence[Action], v: int, limit: int = 16) -> str:
    names = [label(a, v) for a in actions[:limit]]
    return " ".join(names) + (" …" if len(actions) > limit else "")


# -- the bubble -----------------------------------------------------------------------------------


def assert_bubble_formula(got, case: cases.BubbleCase) -> None:
    assert_number_close(
        got,
        reference.bubble_formula(case),
        say("ch7:bubble formula"),
        case,
        say("ch7:bubble formula:hint"),
    )


def assert_bubble_measured(got, case: cases.BubbleCase) -> None:
    measured = reference.measured_bubble(case)
    assert_number_close(
        got,
        float(measured),
        say("ch7:bubble measured", name=case.name, measured=measured),
        case,
        say("ch7:bubble measured:hint"),
    )


# -- the executor ---------------------------------------------------------------------------------


def assert_pipeline_gradients(run, case: cases.PipelineCase) -> None:
    """Every stage's gradients (None for frozen and unused parameters) and the last stage's
    returned loss equal one backward of the whole model on the whole batch."""
    loss, grads = reference.pipeline_gradients(case)
    for s, rank in enumerate(case.ranks):
        got = run[rank]["grads"]
        for name, want in grads[s].items():
            what = say("ch7:gradient of", s=s, rank=rank, name=name)
            if want is None and got.get(name) is not None:
                fail(say("ch7:should stay none", what=what), case, say("ch7:should stay none:hint"))
            if want is not None:
                hint = say("ch7:gradient:hint")
                assert_tensor_equal(got.get(name), want, what=what, case=case, hint=hint)
    last = case.ranks[-1]
    returned = run[last]["returned"]
    value = returned.item() if hasattr(returned, "numel") and returned.numel() == 1 else returned
    if not isinstance(value, int | float) or isinstance(value, bool):
        fail(say("ch7:loss not a number", rank=last, returned=returned), case)
    if abs(value - loss.item()) > 1e-5 * max(1.0, abs(loss.item())):
        fail(say("ch7:wrong loss", rank=last, got=value, want=loss.item()), case, say("ch7:wrong loss:hint"))


def assert_activation_peak(run, case: cases.PipelineCase) -> None:
    """Right gradients, and every stage runs its schedule: each forward once, in the schedule's
    order, holding as many microbatches' saved activations as the schedule has in flight (never
    more: the picture of the schedule shows why; never fewer: a forward that kept nothing was
    run again before its backward)."""
    assert_pipeline_gradients(run, case)
    for s, rank in enumerate(case.ranks):
        record = run[rank]
        if not record["intact"]:
            fail(say("ch7:hooks removed", s=s, rank=rank), case)
        if record["forwards"] < case.m:
            fail(say("ch7:forwards bypassed", s=s, rank=rank, calls=record["forwards"], m=case.m), case)
        peak, bound = record["peak"], case.peak(s)
        if peak > bound:
            why = {
                "gpipe": say("ch7:activation peak:gpipe"),
                "1f1b": say("ch7:activation peak:1f1b", bound=case.p - s),
            }
            raise schedule_failure(
                say(
                    "ch7:activation peak", s=s, rank=rank, peak=peak, bound=bound, why=why.get(case.kind, "")
                ),
                case,
                say("ch7:activation peak:hint"),
                simulate(normalize(case.schedule, case.p, case.m), case.p, case.m),
            )
        who = say("ch7:stage", s=s, rank=rank)
        assert_follows_schedule(record, case.schedule[s], who=who, case=case, hint=say("ch7:order:hint"))


def assert_neighbour_traffic(run, case: cases.PipelineCase) -> None:
    """Right gradients, and stage s sends exactly one activation per microbatch to s + 1, one
    gradient per microbatch to s - 1, each of the activation's size, and nothing else."""
    assert_pipeline_gradients(run, case)
    nbytes = case.activation_bytes
    for s, rank in enumerate(case.ranks):
        expected = {}
        if s + 1 < case.p:
            expected[case.ranks[s + 1]] = "activation"
        if s > 0:
            expected[case.ranks[s - 1]] = "gradient"
        sent: dict[int, list[int]] = {}
        for event in run.traces[rank]:
            if event.is_send:
                sent.setdefault(event.peer, []).append(event.nbytes)
        for peer, sizes in sorted(sent.items()):
            if peer not in expected:
                fail(say("ch7:wrong peer", s=s, rank=rank, n=len(sizes), peer=peer), case)
        for peer, what in expected.items():
            sizes = sent.get(peer, [])
            if len(sizes) != case.m or any(n != nbytes for n in sizes):
                counts = {"n": len(sizes), "total": sum(sizes), "nbytes": nbytes, "m": case.m}
                message = say("ch7:neighbour messages", s=s, rank=rank, peer=peer, what=what, **counts)
                fail(message, case, say("ch7:neighbour messages:hint"))
