"""The grading driver: pytest, run in-process inside the sandbox by :mod:`graders.grading.warm`.

It reports the gradebook on a pipe inherited from the supervisor, never through a file the
graded code could forge, and removes the grader files it collected (the hidden ones included)
from the work folder before any graded code runs, so that no submission can read them.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import time

import pytest


class _Reporter:
    def __init__(self, out_fd: int, scratch: list[str]) -> None:
        self.out_fd = out_fd
        self.scratch = scratch
        self.started = time.monotonic()
        self.collected_at = 0.0

    def pytest_collection_finish(self, session) -> None:
        self.collected_at = time.monotonic()
        for path in self.scratch:
            shutil.rmtree(path, ignore_errors=True)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter, exitstatus, config) -> None:
        from graders.plugin.pytest_plugin import gradebook_of

        now = time.monotonic()
        book = gradebook_of(config)
        message = {
            "report": book.to_dict(),
            "figures": _figures(book, config.getoption("dtlab_report")),
            "timing": {
                "startup_s": (self.collected_at or now) - self.started,
                "tests_s": now - (self.collected_at or now),
            },
        }
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(self.out_fd, data) :]


MAX_FIGURE_BYTES = 2_000_000


def _figures(book, report_path: str | None) -> dict[str, str]:
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


def run(argv: list[str], out_fd: int, scratch: list[str]) -> int:
    """Run pytest with ``argv``; the gradebook goes to ``out_fd`` as one JSON line."""
    from graders.world import fork_server

    fork_server.FORK_IN_PROCESS = True  # this interpreter has torch already: fork the world's server
    return int(pytest.main(argv, plugins=[_Reporter(out_fd, scratch)]))
