"""``@exercise(id, part)``: tie a test to the catalog entry and the part of its points it grades."""

from __future__ import annotations

import pytest

from graders import catalog

MARKER = "dtlab_exercise"


def exercise(exercise_id: str, part: str):
    entry = catalog.exercise(exercise_id)
    if part not in entry.parts:
        raise KeyError(f"{exercise_id} has no part {part!r}; its parts are {sorted(entry.parts)}")
    return getattr(pytest.mark, MARKER)(exercise_id, part)
