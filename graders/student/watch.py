"""``dtlab watch chN [EXERCISE]``: re-grade, on every save, the exercises whose code changed.

One process holds the whole session: torch, pytest, hypothesis and the graders are imported
once, and one worker world pool (its fork server and its worlds) lives from start to Ctrl-C,
lent to every run (:func:`graders.plugin.pytest_plugin.lend_worlds`). A run is an ordinary
in-process ``pytest.main`` over the chapter's graders with the other exercises' tests
deselected (``--dtlab-exercise``): the same plugin, profile, pinned seeds and checks as
``pytest exercises/chN``, so the same verdict for the same code. The test modules stay
imported between runs (pytest's importlib mode reuses them); the graded code is never imported
here: the workers import it fresh for every task.

The folder is polled (``mtime``, size, inode) every ``poll_s``; a changed file is read, and
:mod:`graders.student.watch_changes` says which exercises' code it changed.
"""

from __future__ import annotations

import gc
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from graders import catalog
from graders.gradebook import Gradebook
from graders.impl import KIT_ROOT
from graders.plugin.pytest_plugin import gradebook_of, lend_worlds
from graders.plugin.run_spec import GradingRun
from graders.student.watch_changes import content_digest, file_states, snapshot
from graders.words.text import in_lang
from graders.words.vocabulary import t

SETTLE_S = 0.02  # a changed file is read once it has not changed again for this long
SETTLE_MAX_S = 1.0  # ... or once this long has passed since the change was seen


class _Run:
    """The plugin of one run: lends it the session's world pool."""

    def __init__(self, pool) -> None:
        self.pool = pool
        self.config: pytest.Config | None = None
        self.interrupted = False

    def pytest_configure(self, config: pytest.Config) -> None:
        lend_worlds(config, self.pool)
        self.config = config

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        self.interrupted = True


class Watch:
    """``run`` is the student's (implementation, profile, language, deadline, backend): every run
    of the session grades with it, in worlds of its backend and deadline."""

    def __init__(
        self, chapter: str, exercise: str | None = None, *, run: GradingRun, poll_s: float = 0.05
    ) -> None:
        self.chapter = catalog.CHAPTERS[chapter]
        self.exercises = [e for e in self.chapter.exercises if exercise in (None, e.id)]
        self.grading_run = run
        self.impl = run.impl
        self.dir = self.impl.chapter_dir(chapter)
        self.lang, self.poll_s = run.lang, poll_s
        self.pool = None
        self.states: dict[str, tuple[int, int, int]] = {}
        self.contents: dict[str, str] = {}
        self.graded: dict[str, str] = {}  # exercise -> fingerprint of the code last graded
        self.broken: dict[str, str] = {}  # file -> why it did not compile, as last said
        self.book = Gradebook(impl=self.impl.spec)  # every exercise's latest verdict

    # -- the session -------------------------------------------------------------------------
    def run(self) -> int:
        """Grade once, then re-grade on every save until Ctrl-C (or SIGTERM); returns 0.

        Ctrl-C is answered even when the watch was started with SIGINT ignored, as every
        background job of a shell script is (``dtlab watch ... &``): Python then installs no
        handler of its own, and the watch would never stop."""
        previous_term = signal.signal(signal.SIGTERM, _interrupt)
        previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            self._say("watch:start", chapter=self.chapter.id, impl=_shown(self.dir))
            self._start_worlds()
            started = time.monotonic()
            self.states = file_states(self.dir, self.chapter.builds_on)
            self.contents = {name: content_digest(self.dir / name) for name in self.states}
            self._check(started, first=True)
            self._say("watch:watching", files=", ".join(sorted(self.states)) or _shown(self.dir))
            while True:
                time.sleep(self.poll_s)
                self._poll()
        except KeyboardInterrupt:
            pass
        finally:
            self.close()
            signal.signal(signal.SIGTERM, previous_term)
            signal.signal(signal.SIGINT, previous_int)
        self._say("watch:stopped")
        return 0

    def _start_worlds(self) -> None:
        """Start the fork server first (it imports torch while this process does), with SIGINT
        ignored: a Ctrl-C reaches this process alone, which then closes the worlds itself
        instead of finding them half dead."""
        import tempfile

        from graders.world.fork_server import ForkServer

        server = ForkServer(tempfile.mkdtemp(prefix="dtlab-worlds-"))
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            server.start()
        finally:
            signal.signal(signal.SIGINT, previous)
        from graders.world.pool import WorldPool

        self.pool = WorldPool(
            deadline=self.grading_run.deadline, backend=self.grading_run.backend, fork_server=server
        )

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    # -- changes -----------------------------------------------------------------------------
    def _poll(self) -> None:
        states = file_states(self.dir, self.chapter.builds_on)
        if states == self.states:
            return
        detected = time.monotonic()
        states = self._settled(states, detected + SETTLE_MAX_S)
        self.states = states
        contents = {name: content_digest(self.dir / name) for name in states}
        changed = sorted(
            name
            for name in contents.keys() | self.contents.keys()
            if contents.get(name) != self.contents.get(name)
        )
        self.contents = contents
        if changed:  # rewriting the same bytes changes nothing
            self._check(detected, files=changed)

    def _settled(self, states: dict, until: float) -> dict:
        """The files' states once they have stopped changing for ``SETTLE_S`` (an editor may
        write a file in several steps) and no file is empty that was not (an editor that saves in
        place truncates the file before it writes it); at the latest at ``until``."""
        while time.monotonic() < until:
            time.sleep(SETTLE_S)
            again = file_states(self.dir, self.chapter.builds_on)
            emptied = [
                n for n, state in again.items() if state[1] == 0 and self.states.get(n, (0, 1))[1] != 0
            ]
            if again == states and not emptied:
                break
            states = again
        return states

    def _check(self, detected: float, *, first: bool = False, files: list[str] = ()) -> None:
        code = snapshot(self.dir, self.exercises)
        for name, (why, ids) in sorted(code.broken.items()):
            if self.broken.get(name) != why:
                self._say("watch:syntax", file=name, error=in_lang(why, self.lang), ids=", ".join(ids))
        self.broken = {name: why for name, (why, _) in code.broken.items()}
        todo = [
            e.id
            for e in self.exercises
            if e.id in code.fingerprints and code.fingerprints[e.id] != self.graded.get(e.id)
        ]
        if not todo:
            if files and not any(name in code.broken for name in files):
                self._say("watch:same code", files=", ".join(files))
            return
        self.graded.update({e: code.fingerprints[e] for e in todo})
        ids = ", ".join(todo) if len(todo) <= 4 else t("watch:n exercises", self.lang, n=len(todo))
        if first:
            self._say("watch:first", ids=ids)
        else:
            self._say("watch:changed", files=", ".join(files), ids=ids)
        self._grade(todo, detected, "watch:first verdict" if first else "watch:verdict")

    # -- grading -----------------------------------------------------------------------------
    def _grade(self, exercises: list[str], detected: float, verdict: str) -> None:
        run = _Run(self.pool)
        code = pytest.main(self._pytest_args(exercises), plugins=[run])
        sys.stdout.flush()
        if run.interrupted:
            raise KeyboardInterrupt
        seconds = time.monotonic() - detected
        if run.config is not None and code != pytest.ExitCode.USAGE_ERROR:
            self._keep(gradebook_of(run.config), exercises)
        del run  # the run's session and everything it made is garbage now, before the freeze
        if not gc.get_freeze_count():
            # torch, pytest, hypothesis, the test modules: what lives as long as the session is never
            # scanned again, so pytest's end-of-run collections stay cheap (about 0.3 s each otherwise)
            gc.collect()
            gc.freeze()
        earned = sum(p.points for p in self.book.parts.values())
        possible = sum(e.points for e in self.exercises)
        self._say(verdict, seconds=seconds, chapter=self.chapter.id, earned=earned, possible=possible)

    def _pytest_args(self, exercises: list[str]) -> list[str]:
        """``pytest exercises/chN`` with only ``exercises``' tests selected (``--dtlab-exercise``)."""
        # the kit's modules were imported before this run, so pytest cannot rewrite their assert
        # statements: they have none (its test modules are rewritten on first import)
        quiet = ("-q", "-rN", "-W", "ignore::pytest.PytestAssertRewriteWarning")
        run = replace(self.grading_run, chapters=(self.chapter.id,), exercises=tuple(exercises), extra=quiet)
        return run.pytest_args(KIT_ROOT)

    def _keep(self, run: Gradebook, exercises: list[str]) -> None:
        """Replace the verdicts of ``exercises`` with those of ``run``."""
        for key in [k for k, part in self.book.parts.items() if part.exercise in exercises]:
            del self.book.parts[key]
        self.book.parts.update({k: part for k, part in run.parts.items() if part.exercise in exercises})

    def _say(self, key: str, **values) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {t(key, self.lang, **values)}", flush=True)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
