"""``@exercise(id, part)``: tie a test to the catalog entry and the part of its points it grades.

The marker is checked when the test file is imported (at collection): the exercise and part
must exist in the catalog, and every grader task the test body names (``tasks.broadcast``)
must belong to that exercise, so that a test marked ``ch2.broadcast`` cannot silently grade
``ch2.reduce``'s code. Tasks reached through a helper (a check that runs another exercise's
task on purpose) are the helper's business and are not inspected.
"""

from __future__ import annotations

import dis
import types

import pytest

from graders import catalog

MARKER = "dtlab_exercise"


class MarkerMismatch(TypeError):
    """A test's ``@exercise`` marker and the tasks it runs name different exercises."""


def exercise(exercise_id: str, part: str):
    entry = catalog.exercise(exercise_id)
    if part not in entry.parts:
        raise KeyError(f"{exercise_id} has no part {part!r}; its parts are {sorted(entry.parts)}")
    mark = getattr(pytest.mark, MARKER)(exercise_id, part)

    def decorate(test):
        for name, spec in tasks_named_by(test):
            if spec.exercise != exercise_id:
                raise MarkerMismatch(
                    f"{test.__name__} is marked @exercise({exercise_id!r}, part={part!r}) but runs the "
                    f"task {name}, which grades {spec.exercise}: mark it with that exercise, or run a "
                    f"task of {exercise_id}."
                )
        return mark(test)

    return decorate


def tasks_named_by(test) -> list[tuple[str, object]]:
    """``(name, TaskSpec)`` of every grader task the body of ``test`` loads by name: a global
    (``ring_shift``) or an attribute of a global module (``tasks.ring_shift``)."""
    inner = getattr(getattr(test, "hypothesis", None), "inner_test", test)
    code = getattr(inner, "__code__", None)
    if code is None:
        return []
    found = []
    previous_module: types.ModuleType | None = None
    previous_name = ""
    for instruction in dis.get_instructions(code):
        value = None
        name = ""
        if instruction.opname == "LOAD_GLOBAL":
            name = instruction.argval
            value = inner.__globals__.get(name)
        elif instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and previous_module is not None:
            name = f"{previous_name}.{instruction.argval}"
            value = getattr(previous_module, instruction.argval, None)
        spec = getattr(value, "dtlab_task", None)
        if spec is not None:
            found.append((name, spec))
        previous_module = value if isinstance(value, types.ModuleType) else None
        previous_name = name
    return found
