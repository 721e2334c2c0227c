"""The Python-heap promise holds by scale, not by its threshold alone.

An honest implementation keeps O(1) Python data (a loss, a step counter, a small table); a hoard
keeps O(model): a gradient packed into bytes, a state copied into lists. On the kit's tiny models
a whole gradient packed into bytes fits under the allowance, so every exercise whose memory part
counts the Python heap (``PYTHON_HEAP_COUNTED``) runs that part on at least one explicit example
whose parameters dwarf the allowance: any copy per element, even a byte per element, is then
several allowances over (``graders.training.python_heap``).
"""

from __future__ import annotations

import pytest

from graders.catalog import CHAPTERS, EXERCISES
from graders.catalog.bans import PYTHON_HEAP_COUNTED
from graders.misconceptions import mutants
from graders.training.python_heap import HEAP_SCALE as SCALE
from graders.training.python_heap import KEEP_LIMIT

#: the parts that carry a memory promise
MEMORY_PARTS = ("memory", "state")
HEAP_EXERCISES = sorted(e.id for e in EXERCISES.values() if PYTHON_HEAP_COUNTED <= e.scan_allows)


def _memory_tests(exercise_id: str) -> list:
    tests = mutants.exercise_tests(exercise_id.split(".")[0])
    return [
        fn for (eid, part), fns in tests.items() if eid == exercise_id and part in MEMORY_PARTS for fn in fns
    ]


def test_every_chapter_with_a_heap_promise_is_listed():
    assert {e.split(".")[0] for e in HEAP_EXERCISES} >= {"ch3", "ch4", "ch5", "ch6", "ch8", "ch11"}
    assert set(HEAP_EXERCISES) <= set(EXERCISES) and CHAPTERS


@pytest.mark.parametrize("exercise_id", HEAP_EXERCISES)
def test_each_heap_promise_meets_a_model_that_dwarfs_its_allowance(exercise_id):
    tests = _memory_tests(exercise_id)
    assert tests, f"{exercise_id} counts the Python heap but has no memory part"
    for test in tests:
        cases = [e.kwargs["case"] for e in getattr(test, "hypothesis_explicit_examples", [])]
        largest = max((case.parameter_bytes for case in cases), default=0)
        assert largest >= SCALE * KEEP_LIMIT, (
            f"{exercise_id}: {test.__name__}'s largest explicit example has {largest} bytes of "
            f"parameters; give it one of at least {SCALE * KEEP_LIMIT}"
        )
