"""Driver side: the pool of persistent worlds, one per world size, and ``run`` for graders.

``WorldPool.run(task, impl, case)`` sends a grader task to every rank of the world of
``case.world_size`` ranks, waits for the replies under a deadline and returns a
:class:`RunResult`. Anything that breaks the world (a hang, a crash, an exception that left
peers waiting, messages left in flight) kills it; a fresh world boots in the background for
the next task, so one bad example never leaks into the next.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from graders import config
from graders.comm.trace import Traces, parse
from graders.errors import (
    BannedCall,
    GradingFailure,
    NotStarted,
    RankCrash,
    RankErrorWithStuckPeers,
    StudentError,
    TaskHang,
)
from graders.impl import Impl, ImplLocation
from graders.words.messages import say
from graders.words.text import Text, each_lang, in_lang, number
from graders.world import gloo_errors, reports
from graders.world.backend import BACKENDS, Placement, gpu_count, place
from graders.world.banned_report import raise_for_banned
from graders.world.case_digest import case_digest
from graders.world.fork_server import ForkServer
from graders.world.launched.world import LaunchedWorld
from graders.world.process_world import Collected, ProcessWorld
from graders.world.task import TaskSpec, spec_of

ERROR_GRACE = 1.0
#: a launched world's deadline, in task deadlines: its launcher's rendezvous, and a whole program
LAUNCH_DEADLINE_FACTOR = 2
#: launched outcomes kept for the parts that run the same cases
OUTCOMES_KEPT = 64


def _graded_digest(location: ImplLocation) -> str:
    """A digest of the graded ``.py`` files (names and bytes): the chapter's, and those of the
    chapters it builds on."""
    from graders.world.graded_import import chapter_folders

    digest = hashlib.sha256()
    for chapter, folder in chapter_folders(location).items():
        for path in sorted(Path(folder).glob("*.py")):
            digest.update(f"{chapter}/{path.name}".encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _case_key(case) -> tuple[str, str]:
    """What tells two cases apart for a kept outcome: the repr and the digest of every field (a
    repr written for students may leave out a field, e.g. the seed of the data)."""
    return repr(case), case_digest(case)


@dataclass
class RunResult:
    """Plain data that came back from every rank of one task."""

    values: list  # what the task returned, per global rank
    traces: Traces
    stdout: list[str]
    tampered: dict[int, list[str]] = field(default_factory=dict)
    seconds: float = 0.0
    #: a launched world's output files (``case.launch_outputs()``), by name: bytes, or None if absent
    files: dict[str, bytes | None] = field(default_factory=dict)

    def __getitem__(self, rank: int):
        return self.values[rank]


class WorldPool:
    def __init__(
        self,
        *,
        deadline: float | None = None,
        pg_timeout: float = 30.0,
        fork_server: ForkServer | None = None,
        backend: str = "auto",
        cluster=None,
    ):
        """``deadline``: one task's, in seconds (None: the kit's, :data:`graders.config.DEADLINE_S`);
        ``backend``: of the worlds (a grading run's, :class:`graders.plugin.run_spec.GradingRun`);
        ``cluster``: a :class:`graders.world.job.cluster.Cluster` whose ranks make the worlds (a
        torchrun-launched job), instead of ranks forked here."""
        self.deadline = config.DEADLINE_S if deadline is None else deadline
        self.pg_timeout = pg_timeout
        self.backend = backend
        if self.backend not in BACKENDS:  # refused now, not at the first task
            raise ValueError(f"unknown backend {self.backend!r}: choose one of {', '.join(BACKENDS)}")
        self._gpus: int | None = None
        self.cluster = cluster
        self.base_dir = fork_server.base_dir if fork_server else tempfile.mkdtemp(prefix="dtlab-worlds-")
        self.fork_server = fork_server or ForkServer(self.base_dir)
        self.worlds: dict[int, ProcessWorld] = {}
        self.restarts = 0
        self._outcomes: dict[tuple, RunResult | BaseException] = {}  # see _reused
        atexit.register(self.close)

    # -- worlds ------------------------------------------------------------------------------
    def placement(self, size: int, *, on_this_machine: bool = False) -> Placement:
        """Backend and devices of a world of ``size`` ranks (``NeedsHardware`` if it cannot be
        made here): of the torchrun job's ranks if there is one, unless ``on_this_machine`` (a
        launched world, whose agent the local fork server forks)."""
        if self.cluster is not None and not on_this_machine:
            return self.cluster.placement(self.backend, size)
        if self._gpus is None:
            self._gpus = gpu_count() if self.backend != "gloo" else 0
        return place(self.backend, size, self._gpus)

    def world(self, size: int) -> ProcessWorld:
        """The live world of ``size`` ranks, started on first use."""
        world = self.worlds.get(size)
        if world is None:
            world = self._boot(size)
        world.wait_ready()
        return world

    def warm_up(self) -> None:
        """Start the fork server now (it imports torch, about 3 s) without waiting for it."""
        self.fork_server.start()

    def _boot(self, size: int) -> ProcessWorld:
        if self.cluster is not None:
            from graders.world.job.cluster import RemoteWorld

            world = RemoteWorld(size, self.cluster, self.placement(size), self.pg_timeout)
        else:
            world = ProcessWorld(
                size,
                self.fork_server,
                self.base_dir,
                pg_timeout=self.pg_timeout,
                placement=self.placement(size),
            )
        world.start()
        self.worlds[size] = world
        return world

    def restart(self, size: int) -> None:
        """Kill the world of ``size`` ranks and boot its replacement in the background."""
        world = self.worlds.pop(size, None)
        if world is not None:
            world.kill()
        self.restarts += 1
        self._boot(size)

    def close(self) -> None:
        for world in self.worlds.values():
            world.close()
        self.worlds.clear()
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
        self.fork_server.close()
        shutil.rmtree(self.base_dir, ignore_errors=True)

    # -- tasks -------------------------------------------------------------------------------
    def run(self, task, impl: Impl, case, *, deadline: float | None = None, seed: int = 0) -> RunResult:
        """Run grader ``task`` on every rank for ``case`` against implementation ``impl``."""
        spec = spec_of(task)
        location = impl.location(spec.exercise.split(".")[0])
        deadline = (self.deadline if deadline is None else deadline) * spec.deadline_factor
        # the one place the location becomes plain data: the workers make it again from the message
        message = {"task": spec.ref, "case": case, "location": location.wire(), "seed": seed}
        launched = spec.launcher == "torchrun"
        placement = self.placement(case.world_size, on_this_machine=launched)  # NeedsHardware first
        if launched:
            deadline *= LAUNCH_DEADLINE_FACTOR
            launch = functools.partial(self._launch, message, location, spec, deadline, case, placement)
            return self._reused(message, location, deadline, launch)
        in_pool = functools.partial(self._run_in_pool, message, location, spec, deadline, case)
        return self._reused(message, location, deadline, in_pool) if spec.reuse else in_pool()

    def _run_in_pool(
        self, message: dict, location: ImplLocation, spec: TaskSpec, deadline: float, case
    ) -> RunResult:
        world = self.world(case.world_size)
        world.send(message)
        collected = world.collect(deadline, ERROR_GRACE)
        restart = lambda: self.restart(world.size)  # noqa: E731
        return self._interpret(world, collected, spec, location.graded_root, deadline, case, restart)

    def _reused(self, message: dict, location: ImplLocation, deadline: float, run) -> RunResult:
        """``run()``'s outcome (a result, or the failure raised), kept for the same task, case, seed
        and graded files (their bytes) and given again: for a launched world (a launch costs a
        second or so) and a task declared ``reuse=True`` (a whole training run), whose parts run
        the same cases."""
        key = (
            message["task"],
            _case_key(message["case"]),
            message["seed"],
            deadline,
            _graded_digest(location),
        )
        if key in self._outcomes:
            outcome = self._outcomes[key]
            if isinstance(outcome, BaseException):
                raise outcome
            return outcome
        try:
            outcome = run()
        except (
            StudentError,
            TaskHang,
            RankCrash,
            RankErrorWithStuckPeers,
            BannedCall,
            NotStarted,
        ) as failure:
            self._remember(key, failure)
            raise
        self._remember(key, outcome)
        return outcome

    def _remember(self, key, outcome) -> None:
        self._outcomes[key] = outcome
        while len(self._outcomes) > OUTCOMES_KEPT:
            self._outcomes.pop(next(iter(self._outcomes)))

    def _launch(
        self,
        message: dict,
        location: ImplLocation,
        spec: TaskSpec,
        deadline: float,
        case,
        placement: Placement,
    ) -> RunResult:
        launcher = self.fork_server.launcher()  # see ForkServer.launcher
        world = LaunchedWorld(case.world_size, launcher, self.base_dir, placement=placement)
        world.start_task(message)
        student_dir = location.graded_root
        try:
            collected = world.collect(deadline, ERROR_GRACE)
            outputs = getattr(case, "launch_outputs", tuple)()
            files = {name: world.output(name) for name in outputs}  # the ranks are done or stuck
            result = self._interpret(world, collected, spec, student_dir, deadline, case, lambda: None)
        finally:
            world.kill()
        result.files = files
        return result

    def _interpret(
        self,
        world: ProcessWorld,
        collected: Collected,
        spec: TaskSpec,
        student_dir: str,
        deadline: float,
        case,
        restart,
    ) -> RunResult:
        """The replies as a :class:`RunResult`, or the failure they show; ``restart()`` replaces a
        world the task broke."""
        example = repr(case)
        members = getattr(case, "ranks", None)
        if collected.crashed:
            report, hint = reports.crash_report(world, collected, student_dir, spec.exercise, members)
            restart()
            raise RankCrash(report, example=example, hint=hint)
        replies = collected.replies
        todo = [r for r in replies if r is not None and ("todo" in r or "missing" in r)]
        if collected.pending:
            if todo:
                restart()
                raise NotStarted(spec.exercise, _todo_detail(todo[0]))
            finished = Traces([parse(r.get("trace", [])) if r else [] for r in replies])
            if finished.banned():  # a refused call ended a rank: that, not the wait, is the verdict
                restart()
                raise_for_banned(finished, spec, example)
            if collected.timed_out:
                report = reports.hang_report(world, collected, student_dir, deadline, spec.exercise, members)
                restart()
                raise TaskHang(report, example=example)
            report, hint = reports.stuck_after_error_report(
                world, collected, student_dir, spec.exercise, members
            )
            restart()
            raise RankErrorWithStuckPeers(report, example=example, hint=hint)

        traces = Traces([parse(r.get("trace", [])) for r in replies])
        if traces.unmatched() or any("dirty" in r for r in replies):
            restart()
        if todo:
            raise NotStarted(spec.exercise, _todo_detail(todo[0]))
        raise_for_banned(traces, spec, example)
        _raise_for_errors(replies, spec, example)
        _raise_for_python_kept(replies, spec, example)
        return RunResult(
            values=[r.get("value") for r in replies],
            traces=traces,
            stdout=[r.get("stdout", "") for r in replies],
            tampered={rank: r["tampered"] for rank, r in enumerate(replies) if r.get("tampered")},
            seconds=collected.elapsed,
        )


def _todo_detail(reply: dict) -> Text | str:
    if "missing" in reply:
        return say("not started:missing", file=reply["missing"])
    return ""


def _raise_for_errors(replies: list[dict], spec: TaskSpec, example: str = "") -> None:
    failed = [(rank, r["error"]) for rank, r in enumerate(replies) if "error" in r]
    if not failed:
        return
    # the cause first: a rank that only saw its peer go is reported after the one that went
    failed.sort(key=lambda item: gloo_errors.peer_gone(item[1]["message"]))
    rank, err = failed[0]
    ranks = ", ".join(str(r) for r, _ in failed)
    lines = [say("student error", ranks=ranks, type=err["type"], message=gloo_errors.clean(err["message"]))]
    if err.get("traceback"):
        lines.append(err["traceback"])
    printed = replies[rank].get("stdout", "").strip()
    if printed:
        lines.append(say("printed", tail="\n".join(printed.splitlines()[-5:])))
    what, hint = gloo_errors.said(err["message"])  # a known gloo text, or ""

    def text(lang: str) -> str:
        return "\n".join([in_lang(line, lang) for line in lines] + [in_lang(what, lang)]).rstrip()

    raise StudentError(each_lang(text), hint, example=example, rank=ranks, subject=spec.exercise)


def _raise_for_python_kept(replies: list[dict], spec: TaskSpec, example: str = "") -> None:
    """Graded code kept data as Python objects, where the live ledger does not count it (see
    :mod:`graders.training.python_heap`): the memory promise is broken on those ranks."""
    kept = [(rank, r["python_kept"]) for rank, r in enumerate(replies) if r.get("python_kept")]
    if not kept:
        return
    ranks = ", ".join(str(rank) for rank, _ in kept)
    most = max((found for _, found in kept), key=lambda found: found["bytes"])
    said = say(
        "memory:python kept",
        ranks=ranks,
        bytes=number(most["bytes"], ","),
        phase=most["phase"],
        step=most["step"] + 1,
        where=most["where"] or "?",
        limit=number(most["limit"], ","),
    )
    hint = say("memory:python kept:hint")
    raise GradingFailure(said, hint, example=example, rank=ranks, subject=spec.exercise)
