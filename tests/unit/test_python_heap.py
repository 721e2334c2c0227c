"""The Python heap a graded ledger counts (graders.training.python_heap): data kept as Python
numbers is found whoever holds it, and converting without keeping costs nothing."""

import importlib.util
import textwrap

import pytest

from graders.training.python_heap import KEEP_LIMIT, PythonHeap

GRADED = '''
import json

kept = []


def converts(n):
    """.item()-style conversions that keep nothing: the free list takes the floats back."""
    total = 0.0
    for i in range(n):
        total += float(i) * 1.5
    return total


def keeps_floats(n):
    kept.append([float(i) * 1.5 for i in range(n)])


def keeps_through_json(n):
    """A standard-library helper makes the floats: it works for its caller."""
    kept.append(json.loads(json.dumps([i * 1.5 for i in range(n)])))


def keeps_small_table(n):
    kept.append({f"p{i}": i for i in range(n)})
'''


@pytest.fixture
def graded(tmp_path):
    path = tmp_path / "graded.py"
    path.write_text(textwrap.dedent(GRADED))
    spec = importlib.util.spec_from_file_location("graded_for_heap", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tmp_path, module


def _kept(root, fn, n, *, window=("step",), steps=1):
    heap = PythonHeap(str(root), window)
    for step in range(steps):
        heap.entering("step", step)
        fn(n)
        heap.phase_ended("step", step)
    heap.stop()
    return heap


def test_converting_without_keeping_costs_nothing(graded):
    root, module = graded
    assert _kept(root, module.converts, 500).most.bytes == 0


@pytest.mark.parametrize("n", [100, 400])
def test_floats_kept_are_counted_at_their_line(graded, n):
    root, module = graded
    heap = _kept(root, module.keeps_floats, n)
    assert n * 24 <= heap.most.bytes <= n * 24 + n * 8 + 256
    assert heap.most.where == "graded.py:16"  # the line of the list comprehension
    assert heap.finding() is not None


def test_a_standard_library_helper_works_for_its_caller(graded):
    root, module = graded
    heap = _kept(root, module.keeps_through_json, 300)
    assert heap.most.bytes >= 300 * 24
    assert heap.most.where.startswith("graded.py:")


def test_a_few_numbers_and_a_small_table_pass(graded):
    root, module = graded
    assert _kept(root, module.keeps_floats, 20).finding() is None
    assert _kept(root, module.keeps_small_table, 16).most.bytes < KEEP_LIMIT


def test_the_steady_window_counts_the_second_step_only(graded):
    root, module = graded
    calls = []

    def first_step_only(n):
        module.keeps_floats(n if not calls else 0)
        calls.append(n)

    assert _kept(root, first_step_only, 400, window="steady", steps=3).most.bytes < KEEP_LIMIT
    heap = _kept(root, module.keeps_floats, 400, window="steady", steps=3)
    assert heap.most.step == 1 and heap.finding() is not None
