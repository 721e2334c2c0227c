"""The object graders call to run student code: the ``harness`` fixture.

It adds to :class:`graders.world.pool.WorldPool` what every exercise needs before and after
its code runs: the submitted file must exist and compile, the static scan must find no way
around the guard, and whatever the workers noticed (patched torch attributes, code for
review) is kept for the integrity report.
"""

from __future__ import annotations

from collections import defaultdict

from graders.comm.static_scan import BYPASS, MEMORY, REVIEW, scan_file
from graders.errors import BannedCall, IntegrityFailure, NotStarted, SubmissionError, classify
from graders.impl import Impl
from graders.words.messages import say
from graders.words.text import join
from graders.world.backend import NeedsHardware
from graders.world.case_digest import case_key
from graders.world.pool import RunResult, WorldPool
from graders.world.task import TaskSpec, spec_of


class Harness:
    """``static_scan=False`` sets the scan's verdict aside (its findings are still noted), so
    that the kit's own tests can prove the runtime guard alone stops what the scan also does."""

    def __init__(self, pool: WorldPool | None = None, *, static_scan: bool = True) -> None:
        self.pool = pool or WorldPool()
        self.static_scan = static_scan
        #: exercise -> its integrity notes, each a Text (in every language)
        self.integrity: dict[str, set[str]] = defaultdict(set)
        #: with ``--dtlab-diagnose``: the cases whose run failed (hung, crashed, raised), by
        #: :func:`case_key`, so that the diagnostic battery need not wait for them again
        self.failures: dict[str, str] | None = None
        #: cases of the current test whose world this machine cannot make (``NeedsHardware``),
        #: and how many cases it tried to run; ``set_aside_in_run`` counts them over the run
        self.set_aside: list[str] = []
        self.attempts = 0
        self.set_aside_in_run = 0

    def run(self, task, impl: Impl, case, *, deadline: float | None = None, seed: int = 0) -> RunResult:
        spec = spec_of(task)
        self.check_source(spec, impl)
        self.attempts += 1
        try:
            result = self.pool.run(task, impl, case, deadline=deadline, seed=seed)
        except NeedsHardware as exc:  # not the code's fault: the case is set aside, with why
            self._set_aside(f"{exc} (example: {case!r})")
        except BannedCall as exc:
            self.integrity[spec.exercise].add(exc.note)
            self._remember_failure(task, case, exc)
            raise
        except BaseException as exc:
            self._remember_failure(task, case, exc)
            raise
        changed: dict[str, list[int]] = defaultdict(list)
        for rank, names in sorted(result.tampered.items()):
            for name in names:
                changed[name].append(rank)
        for name, ranks in changed.items():
            who = ", ".join(map(str, ranks))
            self.integrity[spec.exercise].add(say("integrity:tampered", ranks=who, name=name))
        return result

    def _set_aside(self, reason: str):
        """A case whose world cannot be made here (more GPUs, or more torchrun processes, than
        there are): hypothesis draws another; outside a hypothesis test, the test is skipped."""
        import pytest
        from hypothesis import reject
        from hypothesis.control import currently_in_test_context

        if not currently_in_test_context():
            pytest.skip(reason)
        self.set_aside.append(reason)
        self.set_aside_in_run += 1
        reject()

    def begin_test(self) -> None:
        self.set_aside, self.attempts = [], 0

    def shortfall(self) -> str:
        """Why the test that just ended ran none of its cases, if only for want of hardware."""
        return self.set_aside[0] if self.set_aside and len(self.set_aside) == self.attempts else ""

    def _remember_failure(self, task, case, exc: BaseException) -> None:
        if self.failures is not None and not isinstance(exc, KeyboardInterrupt | SystemExit):
            self.failures[case_key(task, case)] = str(classify(exc))

    def check_source(self, spec: TaskSpec, impl: Impl) -> None:
        """Fail fast, before any worker runs, on a missing file, a syntax error or a bypass."""
        exercise_id, symbol = spec.exercise, spec.symbol
        path = impl.source(exercise_id.split(".")[0], spec.module)
        scan = scan_file(path)
        if scan is None:
            raise NotStarted(exercise_id, say("not started:missing", file=path.name))
        if scan.syntax_error:
            where = {"exercise": exercise_id, "file": path.name, "error": scan.syntax_error}
            raise SubmissionError(say("submission:does not compile", **where))
        if symbol in scan.untouched:
            raise NotStarted(exercise_id)  # still the generated stub: no need to start a world
        severities = (BYPASS, MEMORY) if spec.measured_memory else (BYPASS,)  # memory: torch storages only
        for finding in scan.for_symbol(symbol, REVIEW):
            self.integrity[exercise_id].add(f"{path.name} " + finding.said())
        bypasses = [(path.name, f) for severity in severities for f in scan.for_symbol(symbol, severity)]
        bypasses += _in_siblings(path, scan, severities)
        bypasses = [(name, f) for name, f in bypasses if f.what not in spec.scan_allows]
        for name, finding in bypasses:
            self.integrity[exercise_id].add(f"{name} " + finding.said())
        if bypasses and self.static_scan:
            listing = join("\n", (f"  {name} " + f.said() for name, f in bypasses))
            around = say(
                "submission:goes around the guard",
                exercise=exercise_id,
                symbol=symbol,
                listing=listing,
            )
            raise IntegrityFailure(around, hint=_guard_hint(exercise_id, symbol))

    def close(self) -> None:
        self.pool.close()


def _guard_hint(exercise_id: str, symbol: str):
    """What the exercise allows: its ``torch.distributed`` calls where it communicates, plain Python
    and torch where it runs in one process (the scan's findings say what was found)."""
    from graders import catalog

    entry = catalog.exercise(exercise_id)
    if entry.multi_rank or entry.launcher:
        return say("submission:goes around the guard:hint")
    return say("submission:goes around the guard:hint one process", symbol=symbol)


def _in_siblings(path, scan, severities) -> list:
    """``(file, finding)`` of every finding of ``severities`` anywhere in the modules the graded
    module imports relatively (of its folder, or of an earlier chapter's), and those they import:
    all of their code can run."""
    found, seen = [], {path.resolve()}
    todo = [(path.parent, name) for name in scan.siblings]
    while todo:
        folder, name = todo.pop()
        sibling = (folder / f"{name}.py").resolve()
        if sibling in seen:
            continue
        seen.add(sibling)
        result = scan_file(sibling)
        if result is None:
            continue
        shown = (
            sibling.name
            if sibling.parent == path.parent.resolve()
            else f"{sibling.parent.name}/{sibling.name}"
        )
        found += [(shown, f) for f in result.findings if f.severity in severities]
        todo += [(sibling.parent, more) for more in result.siblings]
    return found
