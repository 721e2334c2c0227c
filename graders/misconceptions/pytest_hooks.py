"""The misconceptions' part of a grading run, as a pytest plugin of its own (hooks declared by
:mod:`graders.plugin.hookspecs`): a batch's run (``--dtlab-diagnose``) keeps the batteries of its
failing exercises for the teacher's view; a student's run names their misconceptions at once."""

from __future__ import annotations

import pytest

from graders.misconceptions import battery, student_view

#: the battery's tests of a ``--dtlab-diagnose`` run, loaded at collection
_BATTERY = pytest.StashKey[dict]()


def pytest_dtlab_collected(session: pytest.Session, run) -> None:
    if run.diagnose:
        session.config.stash[_BATTERY] = battery.tests_of_session(session.items)


def pytest_dtlab_graded(book, harness, run, config: pytest.Config) -> None:
    diagnosed = config.stash.get(_BATTERY, {}) if run.diagnose else None
    student_view.after_grading(book, harness, run.impl, diagnosed)
