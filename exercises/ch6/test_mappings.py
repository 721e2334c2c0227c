"""Chapter 6 graders: the conjugate operators (``mappings.py``).

Every property runs your operator forward and backward on 1-4 real gloo ranks, compares both
directions with the single-device result, and reads from the trace the one collective (or
none) that each direction needs.
"""

from hypothesis import given

from graders.chapters.ch6 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise
from graders.plugin.profiles import fewer_examples

#: a mapping is one collective on a small tensor, and its two directions re-run the same task:
#: half the profile's examples each
HALF = fewer_examples(1 / 2)


def edges(mapping):
    return smallest_first(*cases.mapping_edges(mapping))


def _forward(harness, impl, case, task):
    checks.assert_mapping_forward(harness.run(task, impl, case), case)


def _backward(harness, impl, case, task):
    checks.assert_mapping_backward(harness.run(task, impl, case), case)


@exercise("ch6.copy_to_tp_region", part="forward")
@given(case=cases.mapping_cases("copy_to_tp_region"))
@HALF
@edges("copy_to_tp_region")
def test_copy_to_tp_region_forward(harness, impl, case):
    _forward(harness, impl, case, tasks.copy_to_tp_region)


@exercise("ch6.copy_to_tp_region", part="backward")
@given(case=cases.mapping_cases("copy_to_tp_region"))
@HALF
@edges("copy_to_tp_region")
def test_copy_to_tp_region_backward(harness, impl, case):
    _backward(harness, impl, case, tasks.copy_to_tp_region)


@exercise("ch6.reduce_from_tp_region", part="forward")
@given(case=cases.mapping_cases("reduce_from_tp_region"))
@HALF
@edges("reduce_from_tp_region")
def test_reduce_from_tp_region_forward(harness, impl, case):
    _forward(harness, impl, case, tasks.reduce_from_tp_region)


@exercise("ch6.reduce_from_tp_region", part="backward")
@given(case=cases.mapping_cases("reduce_from_tp_region"))
@HALF
@edges("reduce_from_tp_region")
def test_reduce_from_tp_region_backward(harness, impl, case):
    _backward(harness, impl, case, tasks.reduce_from_tp_region)


@exercise("ch6.scatter_to_tp_region", part="forward")
@given(case=cases.mapping_cases("scatter_to_tp_region"))
@HALF
@edges("scatter_to_tp_region")
def test_scatter_to_tp_region_forward(harness, impl, case):
    _forward(harness, impl, case, tasks.scatter_to_tp_region)


@exercise("ch6.scatter_to_tp_region", part="backward")
@given(case=cases.mapping_cases("scatter_to_tp_region"))
@HALF
@edges("scatter_to_tp_region")
def test_scatter_to_tp_region_backward(harness, impl, case):
    _backward(harness, impl, case, tasks.scatter_to_tp_region)


@exercise("ch6.gather_from_tp_region", part="forward")
@given(case=cases.mapping_cases("gather_from_tp_region"))
@HALF
@edges("gather_from_tp_region")
def test_gather_from_tp_region_forward(harness, impl, case):
    _forward(harness, impl, case, tasks.gather_from_tp_region)


@exercise("ch6.gather_from_tp_region", part="backward")
@given(case=cases.mapping_cases("gather_from_tp_region"))
@HALF
@edges("gather_from_tp_region")
def test_gather_from_tp_region_backward(harness, impl, case):
    _backward(harness, impl, case, tasks.gather_from_tp_region)


@exercise("ch6.scatter_to_sequence_region", part="forward")
@given(case=cases.mapping_cases("scatter_to_sequence_region"))
@HALF
@edges("scatter_to_sequence_region")
def test_scatter_to_sequence_region_forward(harness, impl, case):
    _forward(harness, impl, case, tasks.scatter_to_sequence_region)


@exercise("ch6.scatter_to_sequence_region", part="backward")
@given(case=cases.mapping_cases("scatter_to_sequence_region"))
@HALF
@edges("scatter_to_sequence_region")
def test_scatter_to_sequence_region_backward(harness, impl, case):
    _backward(harness, impl, case, tasks.scatter_to_sequence_region)


@exercise("ch6.gather_from_sequence_region", part="forward")
@given(case=cases.mapping_cases("gather_from_sequence_region"))
@HALF
@edges("gather_from_sequence_region")
def test_gather_from_sequence_region_forward(harness, impl, case):
    _forward(harness, impl, case, tasks.gather_from_sequence_region)


@exercise("ch6.gather_from_sequence_region", part="backward")
@given(case=cases.mapping_cases("gather_from_sequence_region"))
@HALF
@edges("gather_from_sequence_region")
def test_gather_from_sequence_region_backward(harness, impl, case):
    _backward(harness, impl, case, tasks.gather_from_sequence_region)


@exercise("ch6.reduce_scatter_to_sequence_region", part="forward")
@given(case=cases.mapping_cases("reduce_scatter_to_sequence_region"))
@HALF
@edges("reduce_scatter_to_sequence_region")
def test_reduce_scatter_to_sequence_region_forward(harness, impl, case):
    _forward(harness, impl, case, tasks.reduce_scatter_to_sequence_region)


@exercise("ch6.reduce_scatter_to_sequence_region", part="backward")
@given(case=cases.mapping_cases("reduce_scatter_to_sequence_region"))
@HALF
@edges("reduce_scatter_to_sequence_region")
def test_reduce_scatter_to_sequence_region_backward(harness, impl, case):
    _backward(harness, impl, case, tasks.reduce_scatter_to_sequence_region)
