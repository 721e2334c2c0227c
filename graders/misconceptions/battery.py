"""The diagnostic battery: what an implementation does on a fixed set of cases of one exercise.

The battery is the exercise's own graders run in a diagnostic mode: each test's explicit
examples and its first few generated ones, drawn derandomized and without shrinking, so every
implementation meets the same cases in the same order (small, multi-rank, subgroups included:
the cases the graders draw). Nothing is judged: every world the tests start is recorded, and
every failure is swallowed so that the next case still runs.

What is recorded per case (a task and its case): the values every rank returned, the traffic of
every rank (per operation, peer and group: how many calls and bytes), or the kind of failure (a
hang, a crash, an exception, a banned call). Two records *agree* when their values are close
and their traffic and failures are the same (:func:`graders.misconceptions.matcher.agree`). All
of it is plain JSON data, so a student's battery can leave the sandbox with their gradebook.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from graders.errors import classify
from graders.gradebook import FAILED
from graders.plugin.chapter_tests import exercise_tests
from graders.world.case_digest import case_key

#: the examples each test draws beyond its explicit ones
GENERATED_EXAMPLES = 3
#: values compared per tensor (the battery's cases are small)
MAX_ELEMENTS = 4096
DIAGNOSTIC_PROFILE = "dtlab-diagnostic"
#: the failures whose code ran and did something to compare (not a stub, a syntax error or a bypass)
DIAGNOSED_KINDS = ("wrong", "error", "hang", "crash", "banned")
#: a battery stops starting tests after this long, or once a case has hung (a hanging
#: implementation costs a deadline a case, and one hang says what the next would)
BUDGET_SECONDS = 30.0
_OPS = {"isend": "send", "irecv": "recv"}


def register_profile() -> str:
    """The hypothesis profile of the battery: derandomized, no database, no deadline, no shrinking."""
    from hypothesis import HealthCheck, Phase, settings  # not when the pytest plugin loads

    settings.register_profile(
        DIAGNOSTIC_PROFILE,
        settings(
            derandomize=True,
            database=None,
            deadline=None,
            max_examples=GENERATED_EXAMPLES,
            phases=(Phase.explicit, Phase.generate),
            suppress_health_check=list(HealthCheck),
            print_blob=False,
            report_multiple_bugs=False,
        ),
    )
    return DIAGNOSTIC_PROFILE


def run_battery(impl, harness, exercise_id: str, tests: dict | None = None) -> dict[str, dict]:
    """``{case key: record}`` of ``impl`` on the battery of ``exercise_id``; ``tests``: the
    chapter's tests in the diagnostic profile (:func:`battery_tests`), loaded once per chapter."""
    chapter = exercise_id.split(".")[0]
    tests = tests if tests is not None else battery_tests(chapter)
    recorder = _Recorder(harness)
    started = time.monotonic()
    for (exercise, _part), functions in sorted(tests.items()):
        if exercise != exercise_id:
            continue
        for fn in functions:
            if time.monotonic() - started > BUDGET_SECONDS or recorder.hung:
                return recorder.records
            _run_quietly(fn, recorder, impl)
    return recorder.records


def battery_tests(chapter: str, files=None) -> dict:
    """The chapter's public tests in the diagnostic profile: from the kit, or from ``files`` (the
    sandbox's copies of them, loaded before they are removed)."""
    return exercise_tests(chapter, profile=register_profile(), files=files)


def tests_of_session(items) -> dict[str, dict]:
    """``chapter -> battery tests`` from the public grader files a pytest session collected (the
    hidden graders are not part of the battery)."""
    from graders.plugin.marker import MARKER  # pytest: here only, the teacher's views never need it

    files: dict[str, set] = {}
    for item in items:
        marker = item.get_closest_marker(MARKER)
        path = Path(str(item.fspath))
        if marker is not None and not path.name.startswith("test_hidden_"):
            files.setdefault(marker.args[0].split(".")[0], set()).add(path)
    return {chapter: battery_tests(chapter, sorted(paths)) for chapter, paths in files.items()}


def failing_exercises(book) -> list[str]:
    """The exercises of ``book`` whose code ran and failed (not a stub, a syntax error, a bypass)."""
    return sorted(
        {p.exercise for p in book.parts.values() if p.status == FAILED and p.kind in DIAGNOSED_KINDS}
    )


def diagnose(book, harness, impl, tests: dict[str, dict]) -> None:
    """The battery of every exercise of ``book`` whose code ran and failed, into ``book.diagnostics``."""
    for exercise_id in failing_exercises(book):
        chapter = exercise_id.split(".")[0]
        if chapter in tests:
            book.diagnostics[exercise_id] = run_battery(impl, harness, exercise_id, tests[chapter])


def _run_quietly(fn, recorder, impl) -> None:
    """Run test ``fn`` on every case of its battery, whatever each case does."""
    inner = getattr(getattr(fn, "hypothesis", None), "inner_test", None)
    if inner is None:  # a test without hypothesis: one case
        _swallow(fn, harness=recorder, impl=impl)
        return

    def every_case(*args, **kwargs):
        _swallow(inner, *args, **kwargs)

    fn.hypothesis.inner_test = every_case
    try:
        _swallow(fn, harness=recorder, impl=impl)
    finally:
        fn.hypothesis.inner_test = inner


def _swallow(fn, *args, **kwargs) -> None:
    try:
        fn(*args, **kwargs)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - a failing case is what the battery records, not an error
        pass


class _Skipped(Exception):
    """A case the battery does not run (after a hang)."""


class _Recorder:
    """Stands in for the harness: runs every task through it and records what came back."""

    def __init__(self, harness) -> None:
        self._harness = harness
        self.records: dict[str, dict] = {}
        self.hung = False

    def __getattr__(self, name):
        return getattr(self._harness, name)

    def run(self, task, impl, case, **kwargs):
        key = case_key(task, case)
        if self.hung:  # the rest of this test's cases: not run
            raise _Skipped
        known = (getattr(self._harness, "failures", None) or {}).get(key)
        if known is not None:  # grading ran this case already, and it failed: not again
            self.records.setdefault(key, {"failure": known})
            self.hung = self.hung or known == "hang"
            raise _Skipped
        try:
            result = self._harness.run(task, impl, case, **kwargs)
        except BaseException as exc:
            if not isinstance(exc, KeyboardInterrupt | SystemExit):
                self.records.setdefault(key, {"failure": str(classify(exc))})
                self.hung = self.hung or self.records[key]["failure"] == "hang"
            raise
        self.records.setdefault(key, {"values": plain(result.values), "traffic": traffic(result.traces)})
        return result


def plain(value):
    """``value`` as JSON data: tensors as dtype, shape and (the first) values as floats."""
    import torch  # in a grading run only: the pytest plugin and the teacher's views load without it

    if isinstance(value, torch.Tensor):
        flat = value.detach().reshape(-1)[:MAX_ELEMENTS]
        numbers = flat.double().tolist() if flat.is_floating_point() else flat.tolist()
        return {"tensor": str(value.dtype), "shape": list(value.shape), "values": numbers}
    if isinstance(value, dict):
        return {"dict": {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return repr(value)[:200]


def traffic(traces) -> list[list]:
    """Per rank, ``[op, peer, group, calls, bytes, largest]`` of every kind of message or
    collective, then ``["phases", [[mark, calls], ...]]``: how many calls each phase the task
    marked ends (``backward_end``, ``step_end``, ...) held, summed over its repeats (whether the
    calls overlap the backward or come after it)."""
    found = []
    for rank in range(len(traces)):
        calls: Counter = Counter()
        volume: Counter = Counter()
        largest: Counter = Counter()
        phases: Counter = Counter()
        since_mark = 0
        for event in traces[rank]:
            if event.is_mark:
                phases[event.op.removeprefix("mark:")] += since_mark
                since_mark = 0
                continue
            if event.is_ready:
                continue
            key = (_OPS.get(event.op, event.op), event.peer, tuple(event.group))
            calls[key] += 1
            volume[key] += event.nbytes
            largest[key] = max(largest[key], event.nbytes)
            since_mark += 1
        phases[""] += since_mark
        rows = [[op, peer, list(group), calls[key], volume[key], largest[key]]
                for key in sorted(calls) for op, peer, group in [key]]  # fmt: skip
        if len(phases) > 1:
            rows.append(["phases", sorted([label, n] for label, n in phases.items())])
        found.append(rows)
    return found
