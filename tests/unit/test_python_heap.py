"""The Python heap a graded ledger counts (graders.training.python_heap): data kept as Python
numbers is found whoever holds it, and converting without keeping costs nothing."""

import gc
import importlib.util
import textwrap

import pytest

from graders.training.python_heap import KEEP_LIMIT, SETUP_KEEP_LIMIT, PythonHeap

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


def keeps_packed_blocks(n):
    """n floats packed into bytes objects of 100 bytes each: structure-sized blocks, but data."""
    import struct

    packed = struct.pack(f"{n}f", *(i * 1.5 for i in range(n)))
    kept.append([packed[i : i + 100] for i in range(0, len(packed), 100)])


def keeps_one_joined_bytes(n):
    import struct

    kept.append(struct.pack(f"{n}f", *(i * 1.5 for i in range(n))))


def keeps_strings(n):
    kept.append([repr(i * 1.5) * 4 for i in range(n // 4)])


def keeps_bytearray(n):
    kept.append(bytearray(4 * n))


def keeps_array(n):
    import array

    kept.append(array.array("f", (i * 1.5 for i in range(n))))


def keeps_numpy(n):
    import numpy

    kept.append(numpy.arange(n, dtype=numpy.float32))


def keeps_mmap(n):
    import mmap

    memory = mmap.mmap(-1, 4 * n)
    memory[:4] = b"\x01\x02\x03\x04"
    kept.append(memory)


def keeps_temporary_file(n):
    import tempfile

    f = tempfile.TemporaryFile()
    f.write(bytes(4 * n))
    f.flush()
    kept.append(f)


def keeps_written_file(n):
    import os
    import tempfile

    fd, path = tempfile.mkstemp()
    os.write(fd, bytes(4 * n))
    os.close(fd)
    kept.append(path)
'''


@pytest.fixture(autouse=True, scope="module")
def frozen():
    """The collector as a worker has it: what the fork server imported is frozen out of it."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


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
    heap.close()
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


@pytest.mark.parametrize(
    "name",
    [
        "keeps_packed_blocks",
        "keeps_one_joined_bytes",
        "keeps_strings",
        "keeps_bytearray",
        "keeps_array",
        "keeps_numpy",
        "keeps_mmap",
        "keeps_temporary_file",
        "keeps_written_file",
    ],
)
def test_data_kept_outside_torch_is_counted_whatever_its_kind(graded, name):
    """Bytes, strings, buffers and arrays at any size, memory the system maps, files written:
    a gradient's worth of each (1024 floats) is counted, on the line or as files."""
    root, module = graded
    heap = _kept(root, getattr(module, name), 1024)
    assert heap.most.bytes >= 3 * 1024, (name, heap.most)
    assert heap.finding() is not None


def test_importing_and_building_are_counted_against_their_own_allowance(graded):
    root, module = graded
    heap = PythonHeap(str(root), "steady")
    heap.entering("setup", 0)
    module.keeps_small_table(64)  # a table per parameter tensor: fine while building
    heap.phase_ended("setup", 0)
    heap.entering("construct", 0)
    module.keeps_floats(2048)  # a copy per element of a model: not
    heap.phase_ended("construct", 0)
    heap.close()
    assert heap.most_in_setup.bytes > SETUP_KEEP_LIMIT
    assert heap.most_in_setup.phase == "construct"
    assert heap.finding()["limit"] == SETUP_KEEP_LIMIT


IMPORTED = '''
import functools


class Layer:
    """A class: importing it makes a type and its dictionary, which are code."""

    scale = 2.0

    @functools.lru_cache(maxsize=None)
    def forward(self, x, *, width=4):
        return x * self.scale


def helper(values, weights=None):
    return [v * 2 for v in values]
'''

HOARDS_AT_IMPORT = (
    IMPORTED
    + """
_STASH = [float(i) for i in range(4096)]
_BUFFER = bytearray(64 * 1024)


def stash_later(x, _kept=[0.0] * 4096):
    return x
"""
)


#: more code than the setup allowance: its definitions must be told apart from data
MANY_DEFINITIONS = IMPORTED + "".join(
    f"\n\nclass Layer{i}:\n    scale = {i}.5\n\n    def forward(self, x, *, width=4):\n        return x\n"
    for i in range(120)
)


@pytest.mark.parametrize(
    ("source", "counted"), [(IMPORTED, False), (MANY_DEFINITIONS, False), (HOARDS_AT_IMPORT, True)]
)
def test_importing_a_module_counts_its_data_not_its_code(tmp_path, source, counted):
    path = tmp_path / "imported.py"
    path.write_text(textwrap.dedent(source))
    heap = PythonHeap(str(tmp_path), "steady")
    heap.entering("setup", 0)
    spec = importlib.util.spec_from_file_location("imported_for_heap", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    heap.phase_ended("setup", 0)
    heap.close()
    if counted:
        assert heap.finding() is not None and heap.most_in_setup.bytes > SETUP_KEEP_LIMIT
    else:  # (definitions are told apart only when the phase would be over its allowance)
        assert heap.finding() is None and heap.most_in_setup.bytes < SETUP_KEEP_LIMIT, heap.most_in_setup
