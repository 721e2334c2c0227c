"""Fixtures for the kit's own tests (the graders' fixtures come from the dtlab pytest plugin)."""

import sys

import pytest

from graders.impl import KIT_ROOT


@pytest.fixture(scope="session")
def kit_root():
    return KIT_ROOT


@pytest.fixture(scope="session")
def grade_command():
    """``grade_command(submissions, out, *options)``: the argv of ``dtlab grade`` for chapter 2."""

    def command(submissions, out, *options: str) -> list[str]:
        chapter = ["--chapter", "ch2", "--out", str(out)]
        return [sys.executable, "-m", "graders", "grade", str(submissions), *chapter, *options]

    return command
