"""The grading driver: pytest, run in-process inside the sandbox by :mod:`graders.grading.warm`.

It reports the gradebook on a pipe inherited from the supervisor, never through a file the
graded code could forge, and removes the grader files it collected (the hidden ones included)
from the work folder before any graded code runs, so that no submission can read them.

The report is only as good as the run, so the driver also vouches for its completeness:

* graded code cannot interrupt it: every signal that would stop or end it is ignored
  (:func:`shield`); in a PID namespace it is pid 1, which nothing inside can kill either;
* a part any of whose tests did not run (pytest stopped early, a collection error) is failed
  with :data:`FailureKind.INTERRUPTED` and scores 0, whatever its other tests said: a run cut
  short never keeps the passes it had so far;
* a part the kit itself failed on says what failed (the end of the traceback), never nothing;
* it notes when the job's work area filled up (the disk quota), the reason a part then failed.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import time

import pytest

from graders.errors import Failure, FailureKind
from graders.gradebook import FAILED
from graders.plugin.marker import MARKER

#: Signals whose default action stops or ends a process (SIGKILL and SIGSTOP cannot be ignored).
SHIELDED = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGALRM,
    signal.SIGVTALRM,
    signal.SIGPROF,
    signal.SIGPIPE,
    signal.SIGTSTP,
    signal.SIGTTIN,
    signal.SIGTTOU,
)
INTERRUPTED_MESSAGE = "grading was interrupted before every test of this part had run: it scores 0"
#: Free space below which the work area counts as full.
DISK_FULL_BYTES = 1 << 20
MAX_FIGURE_BYTES = 2_000_000
_TRACEBACK_LINES = 12


def shield() -> None:
    """Ignore every signal graded code could send to stop the driver (before pytest starts)."""
    for signum in SHIELDED:
        signal.signal(signum, signal.SIG_IGN)


class _Reporter:
    def __init__(self, out_fd: int, scratch: list[str], disk: str | None) -> None:
        self.out_fd = out_fd
        self.scratch = scratch
        self.disk = disk
        self.disk_full = False
        self.started = time.monotonic()
        self.collected_at = 0.0
        self.expected: dict[str, tuple[str, str]] = {}  # nodeid -> (exercise, part)
        self.finished: set[str] = set()
        self.collection_errors: list[str] = []
        self.config = None

    def pytest_configure(self, config) -> None:
        self.config = config

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {_last_lines(report.longreprtext)}")

    def pytest_collection_finish(self, session) -> None:
        self.collected_at = time.monotonic()
        for item in session.items:
            marker = item.get_closest_marker(MARKER)
            if marker is not None:
                self.expected[item.nodeid] = tuple(marker.args)
        for path in self.scratch:
            shutil.rmtree(path, ignore_errors=True)

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.finished.add(report.nodeid)
        if report.failed and report.nodeid in self.expected:
            self._explain_grader_error(report)
        if self.disk and not self.disk_full:
            self.disk_full = _free_bytes(self.disk) < DISK_FULL_BYTES

    def _explain_grader_error(self, report) -> None:
        """A part the kit failed on without a message gets the end of the traceback."""
        from graders.plugin.pytest_plugin import gradebook_of

        entry = gradebook_of(self.config).parts.get("::".join(self.expected[report.nodeid]))
        if entry is not None and entry.kind == FailureKind.INTERNAL and not entry.text().strip():
            test = report.nodeid.rsplit("::", 1)[-1]
            said = f"the graders failed in {test} ({report.when}):\n" + _last_lines(report.longreprtext)
            entry.failure = Failure.of(FailureKind.INTERNAL, said).to_dict()

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter, exitstatus, config) -> None:
        from graders.plugin.pytest_plugin import gradebook_of, run_of

        now = time.monotonic()
        book = gradebook_of(config)
        unfinished = sorted({self.expected[n] for n in self.expected if n not in self.finished})
        for exercise_id, part in unfinished:
            book.record(exercise_id, part, FAILED, Failure.of(FailureKind.INTERRUPTED, INTERRUPTED_MESSAGE))
        message = {
            "report": book.to_dict(),
            "figures": _figures(book, run_of(config).report),
            "timing": {
                "startup_s": (self.collected_at or now) - self.started,
                "tests_s": now - (self.collected_at or now),
            },
            "run": {
                "collected": len(self.expected),
                "not_run": len(self.expected) - len(self.finished & set(self.expected)),
                "collection_errors": self.collection_errors,
                "disk_full": self.disk_full,
            },
        }
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(self.out_fd, data) :]


def _last_lines(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-_TRACEBACK_LINES:])


def _free_bytes(path: str) -> int:
    try:
        info = os.statvfs(path)
    except OSError:
        return 1 << 62
    return info.f_bavail * info.f_frsize


def _figures(book, report_path: str | os.PathLike | None) -> dict[str, str]:
    """The PNG figures the plugin drew beside the report, base64-encoded for the pipe."""
    if not report_path:
        return {}
    root = os.path.dirname(os.path.abspath(report_path))
    found, total = {}, 0
    for part in book.parts.values():
        for name in part.figures:
            path = os.path.realpath(os.path.join(root, name))
            if not path.startswith(root + os.sep) or not os.path.isfile(path):
                continue
            data = open(path, "rb").read()  # noqa: SIM115 - tiny PNGs
            total += len(data)
            if total > MAX_FIGURE_BYTES:
                return found
            found[name] = base64.b64encode(data).decode()
    return found


def run(argv: list[str], out_fd: int, scratch: list[str], disk: str | None = None) -> int:
    """Run pytest with ``argv``; the gradebook goes to ``out_fd`` as one JSON line.

    ``disk`` is the job's size-limited work area, watched for filling up (``None``: no quota).
    """
    from graders.world import fork_server

    fork_server.FORK_IN_PROCESS = True  # this interpreter has torch already: fork the world's server
    return int(pytest.main(argv, plugins=[_Reporter(out_fd, scratch, disk)]))
