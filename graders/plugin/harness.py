"""The object graders call to run student code: the ``harness`` fixture.

It adds to :class:`graders.world.pool.WorldPool` what every exercise needs before and after
its code runs: the submitted file must exist and compile, the static scan must find no way
around the guard, and whatever the workers noticed (patched torch attributes, code for
review) is kept for the integrity report.
"""

from __future__ import annotations

from collections import defaultdict

from graders.comm.static_scan import BYPASS, MEMORY, REVIEW, scan_file
from graders.errors import BannedCall, IntegrityFailure, NotStarted, SubmissionError
from graders.impl import Impl
from graders.world.pool import RunResult, WorldPool
from graders.world.task import TaskSpec, spec_of


class Harness:
    def __init__(self, pool: WorldPool | None = None) -> None:
        self.pool = pool or WorldPool()
        self.integrity: dict[str, set[str]] = defaultdict(set)

    def run(self, task, impl: Impl, case, *, deadline: float | None = None, seed: int = 0) -> RunResult:
        spec = spec_of(task)
        self.check_source(spec, impl)
        try:
            result = self.pool.run(task, impl, case, deadline=deadline, seed=seed)
        except BannedCall as exc:
            self.integrity[spec.exercise].add(exc.message.split(", which")[0] + " (banned)")
            raise
        changed: dict[str, list[int]] = defaultdict(list)
        for rank, names in sorted(result.tampered.items()):
            for name in names:
                changed[name].append(rank)
        for name, ranks in changed.items():
            who = ", ".join(map(str, ranks))
            self.integrity[spec.exercise].add(
                f"rank {who} changed {name} at run time (restored before grading)"
            )
        return result

    def check_source(self, spec: TaskSpec, impl: Impl) -> None:
        """Fail fast, before any worker runs, on a missing file, a syntax error or a bypass."""
        exercise_id, symbol = spec.exercise, spec.symbol
        path = impl.source(exercise_id.split(".")[0], spec.module)
        scan = scan_file(path)
        if scan is None:
            raise NotStarted(exercise_id, f"{path.name} is missing")
        if scan.syntax_error:
            raise SubmissionError(f"{exercise_id}: {path.name} does not compile ({scan.syntax_error}).")
        if symbol in scan.untouched:
            raise NotStarted(exercise_id)  # still the generated stub: no need to start a world
        for finding in scan.for_symbol(symbol, REVIEW):
            self.integrity[exercise_id].add(f"{path.name} {finding}")
        bypasses = scan.for_symbol(symbol, BYPASS)
        if spec.measured_memory:  # its memory is counted in torch's storages: no other place
            bypasses += scan.for_symbol(symbol, MEMORY)
        if bypasses:
            for finding in bypasses:
                self.integrity[exercise_id].add(f"{path.name} {finding}")
            listing = "\n".join(f"  {path.name} {f}" for f in bypasses)
            raise IntegrityFailure(
                f"{exercise_id}: the code of {symbol} goes around the graders' guard:\n{listing}\n"
                "hint: use only the public torch.distributed calls the exercise allows; "
                "these constructs are not accepted in a submission."
            )

    def close(self) -> None:
        self.pool.close()
