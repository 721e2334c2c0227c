"""Fixtures for the kit's own tests (the graders' fixtures come from the dtlab pytest plugin)."""

import pytest

from graders.impl import KIT_ROOT


@pytest.fixture(scope="session")
def kit_root():
    return KIT_ROOT
