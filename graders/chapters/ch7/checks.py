"""Chapter 7 checks: what a schedule, or a real pipeline run, must satisfy, as teaching failures.

Every failure about a schedule shows the schedule as a text timeline (the dependency
simulator's run under unit costs) and attaches the same timeline as a PNG figure, drawn when
a report is written. A pipeline run is checked on its gradients, the activations its stages
kept alive, and the messages they sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from graders import figures
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
from graders.checks import assert_number_close, assert_tensor_equal, fail
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


def simulated(raw, case, what: str = "your schedule", *, deadlock_ok: bool = False) -> Simulation:
    """Check that ``raw`` is a complete, dependency-respecting schedule for ``case`` whose
    messages arrive in the order they are needed, and (unless ``deadlock_ok``) deadlock-free;
    return its simulation (unit costs)."""
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
    problems = message_order_problems(schedule, case.p, case.v)
    if problems:
        fail(
            f"{what} cannot run on point-to-point messages:\n  " + "\n  ".join(problems),
            case,
            "every stage must handle the microbatches (and chunks) in the same order: the forwards "
            "in one order, the backwards in one order, on every stage.",
        )
    sim = simulate(schedule, case.p, case.m, case.v)
    if sim.deadlocked and not deadlock_ok:
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


def _interleaved_reference(case) -> tuple[str, list[list[Action]], list[int]]:
    """(name, order, in-flight bound per stage) an interleaved schedule is compared with: with
    one chunk, 1F1B (chunk 0 everywhere, at most p - s in flight); with more, torch's
    ``ScheduleInterleaved1F1B`` and its peak on every stage."""
    if case.v == 1:
        order = [[(kind, mb, 0) for kind, mb in row] for row in cases.one_f_one_b_order(case.p, case.m)]
        return "1F1B", order, [case.p - s for s in range(case.p)]
    order = reference.interleaved_1f1b(case.p, case.m, case.v)
    return "torch's ScheduleInterleaved1F1B", order, [max(in_flight(row), default=0) for row in order]


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
        for kind, word in (("F", "forwards"), ("B", "backwards")):
            ours = [a for a in mine if a[0] == kind]
            wanted = [a for a in theirs if a[0] == kind]
            if ours != wanted:
                at = next(i for i, (a, b) in enumerate(zip(ours, wanted)) if a != b)
                raise schedule_failure(
                    f"stage {s} runs its {word} in another order than {name}: its {word[:-1]} #{at} is "
                    f"{label(ours[at], case.v)}, the reference's is {label(wanted[at], case.v)}.\n"
                    f"  yours:     {_labels(ours, case.v)}\n  reference: {_labels(wanted, case.v)}\n"
                    f"{name}:\n" + timeline.text(ref_sim),
                    case,
                    "interleaving is depth-first: p microbatches go through chunk 0, then the same p "
                    "through chunk 1, ..., then the next p microbatches; backwards visit the chunks "
                    "in reverse.",
                    sim,
                )
        peak = max(in_flight(mine), default=0)
        if peak > bounds[s]:
            hint = (
                "with one chunk, interleaved 1F1B is 1F1B: warm up with min(p - s - 1, m) forwards, "
                "then alternate."
                if case.v == 1
                else "warm up with (p - s - 1) * 2 + (v - 1) * p forwards (at most m * v), then alternate."
            )
            raise schedule_failure(
                f"stage {s} holds {peak} chunk-activations at once; {name} holds at most {bounds[s]} there"
                + (" (p - s)." if case.v == 1 else "."),
                case,
                hint,
                sim,
            )


def _labels(actions: Sequence[Action], v: int, limit: int = 16) -> str:
    names = [label(a, v) for a in actions[:limit]]
    return " ".join(names) + (" …" if len(actions) > limit else "")


# -- the bubble -----------------------------------------------------------------------------------


def assert_bubble_formula(got, case: cases.BubbleCase) -> None:
    assert_number_close(
        got,
        reference.bubble_formula(case),
        "bubble fraction (idle share of the total time)",
        case,
        "each stage idles p - 1 forward+backward slots (their 1/v with v chunks) out of m + p - 1: "
        "divide the idle time by the total time, not by the useful time.",
    )


def assert_bubble_measured(got, case: cases.BubbleCase) -> None:
    measured = reference.measured_bubble(case)
    assert_number_close(
        got,
        float(measured),
        f"your bubble fraction vs. the idle share measured on torch's {case.name} schedule "
        f"(simulated, backward = 2 × forward: {measured})",
        case,
        "the idle share does not depend on how long a forward or a backward takes.",
    )


# -- the executor ---------------------------------------------------------------------------------

GRADIENT_HINT = (
    "the gradient is that of the mean of the microbatch losses: scale each microbatch's loss by "
    "1 / num_microbatches, receive a gradient for exactly the output you sent, and backpropagate "
    "each microbatch through the graph of its own forward."
)


def assert_pipeline_gradients(run, case: cases.PipelineCase) -> None:
    """Every stage's gradients (None for frozen and unused parameters) and the last stage's
    returned loss equal one backward of the whole model on the whole batch."""
    loss, grads = reference.pipeline_gradients(case)
    for s, rank in enumerate(case.ranks):
        got = run[rank]["grads"]
        for name, want in grads[s].items():
            what = f"stage {s} (rank {rank}): gradient of {name}"
            if want is None and got.get(name) is not None:
                fail(
                    f"{what} should stay None: the parameter is frozen or unused.",
                    case,
                    "only parameters that take part in the forward get a gradient.",
                )
            if want is not None:
                assert_tensor_equal(got.get(name), want, what=what, case=case, hint=GRADIENT_HINT)
    last = case.ranks[-1]
    returned = run[last]["returned"]
    value = returned.item() if hasattr(returned, "numel") and returned.numel() == 1 else returned
    if not isinstance(value, int | float) or isinstance(value, bool):
        fail(f"the last stage (rank {last}) must return the mean loss, got {returned!r}.", case)
    if abs(value - loss.item()) > 1e-5 * max(1.0, abs(loss.item())):
        fail(
            f"the last stage (rank {last}) returned loss {value!r}, the batch mean loss is {loss.item()!r}.",
            case,
            "return the mean of the microbatch losses.",
        )


def assert_activation_peak(run, case: cases.PipelineCase) -> None:
    """Right gradients, and no stage keeps more microbatches' saved activations alive than its
    schedule has in flight."""
    assert_pipeline_gradients(run, case)
    for s, rank in enumerate(case.ranks):
        if not run[rank]["meters_intact"]:
            fail(
                f"stage {s} (rank {rank}) removed the hooks of its stage module: the grader measures "
                "the stored activations with them. Leave the module's hooks alone.",
                case,
            )
        if run[rank]["forwards"] < case.m:
            fail(
                f"stage {s} (rank {rank}) called its stage module {run[rank]['forwards']} time(s) for "
                f"{case.m} forwards: run every forward through stage_module(x), which is where the "
                "grader measures the stored activations.",
                case,
            )
        peak, bound = run[rank]["peak"], case.peak(s)
        if peak <= bound:
            continue
        shape = {"gpipe": "GPipe holds all m", "1f1b": f"1F1B holds at most p - s = {case.p - s}"}
        raise schedule_failure(
            f"stage {s} (rank {rank}) kept the activations of {peak} microbatches alive at once; "
            f"its schedule never has more than {bound} in flight"
            + (f" ({shape[case.kind]})." if case.kind in shape else "."),
            case,
            "once a microbatch's backward has run, drop every reference to its input and output "
            "(and never use retain_graph=True), so that autograd frees its saved activations.",
            simulate(normalize(case.schedule, case.p, case.m), case.p, case.m),
        )


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
                fail(
                    f"stage {s} (rank {rank}) sent {len(sizes)} message(s) to rank {peer}: a stage only "
                    "sends activations to the next stage and gradients to the previous one.",
                    case,
                )
        for peer, what in expected.items():
            sizes = sent.get(peer, [])
            if len(sizes) != case.m or any(n != nbytes for n in sizes):
                fail(
                    f"stage {s} (rank {rank}) sent {len(sizes)} message(s) to rank {peer} "
                    f"({sum(sizes)} bytes); it must send one {what} of {nbytes} bytes per microbatch: "
                    f"{case.m} messages.",
                    case,
                    "send each activation and each gradient once, and nothing else (the shapes are known).",
                )
