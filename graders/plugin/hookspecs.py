"""Where other wings join a grading run without the plugin importing them: pytest hooks.

The plugin declares these hooks and calls them; a wing that has something to add implements them
in a module of its own (pytest reads a hook by its ``pytest_`` prefix), which pytest loads as a
plugin of its own: the ``pytest11`` entry points in ``pyproject.toml``, and ``-p`` where
autoloading is off. So the plugin stays below the wings that use it:
:mod:`graders.misconceptions.pytest_hooks` implements both.
"""

from __future__ import annotations

import pytest


@pytest.hookspec
def pytest_dtlab_collected(session: pytest.Session, run) -> None:
    """The run's tests are collected (``run``: its :class:`~graders.plugin.run_spec.GradingRun`),
    before a sandboxed run removes the graders' files."""


@pytest.hookspec
def pytest_dtlab_graded(book, harness, run, config: pytest.Config) -> None:
    """The run is graded and ``book`` holds its verdicts, before the points table is shown and the
    gradebook written: a hook may add to ``book`` (what a failing exercise behaves like)."""
