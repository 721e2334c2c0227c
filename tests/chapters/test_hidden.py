"""The hidden graders add evidence the public ones lack, and can fail.

``hidden/fixtures/ch2/drifting_replicas`` is a ring all-reduce whose values are within tolerance
(the public ``result`` test passes) but whose replicas differ bitwise: the hidden replica
property must fail it, so the part is lost at grading time only. ``hidden/fixtures/ch6/
unstable_cross_entropy`` does the same for chapter 6's large-logit property.
"""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def _pytest(kit_root, tmp_path, impl: str, *tests: str) -> str:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *(str(kit_root / test) for test in tests),
            f"--impl={kit_root / impl}",
            "--hypothesis-profile=ci",
            "-p",
            "no:cacheprovider",
            f"--rootdir={kit_root}",
            "-rA",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    return run.stdout


def test_a_hidden_property_fails_what_the_public_ones_accept(kit_root, tmp_path):
    out = _pytest(
        kit_root,
        tmp_path,
        "hidden/fixtures/ch2/drifting_replicas",
        "exercises/ch2/test_collectives.py::test_ring_all_reduce",
        "hidden/ch2/test_hidden_collectives.py::test_ring_all_reduce_leaves_identical_replicas",
    )
    assert "PASSED" in out and "test_collectives.py::test_ring_all_reduce" in out, out[-3000:]
    assert "FAILED" in out and "test_ring_all_reduce_leaves_identical_replicas" in out, out[-3000:]
    assert "bitwise the same values" in out and "Traceback" not in out
    assert "ch2.ring_all_reduce       0/3   failed" in out  # result lost; ring not graded here


def test_a_correct_cross_entropy_written_another_way_keeps_its_result_on_large_logits(kit_root, tmp_path):
    """``hidden/fixtures/ch6/logsumexp_form`` subtracts the target's raw logit from m + log s: on
    logits of a few hundred that costs a few ulps of the logits, within the tolerance they get."""
    out = _pytest(
        kit_root,
        tmp_path,
        "hidden/fixtures/ch6/logsumexp_form",
        "exercises/ch6/test_layers.py::test_vocab_parallel_cross_entropy",
        "hidden/ch6/test_hidden_layers.py::test_vocab_parallel_cross_entropy_is_stable_on_large_logits",
    )
    assert "FAILED" not in out and out.count("PASSED") == 2, out[-3000:]


def test_an_unstable_cross_entropy_loses_its_result_at_grading_time(kit_root, tmp_path):
    """``hidden/fixtures/ch6/unstable_cross_entropy`` takes exp of the raw logits: right on the
    public examples, not finite on the hidden large logits."""
    out = _pytest(
        kit_root,
        tmp_path,
        "hidden/fixtures/ch6/unstable_cross_entropy",
        "exercises/ch6/test_layers.py::test_vocab_parallel_cross_entropy",
        "hidden/ch6/test_hidden_layers.py::test_vocab_parallel_cross_entropy_is_stable_on_large_logits",
    )
    assert "PASSED" in out and "test_layers.py::test_vocab_parallel_cross_entropy" in out, out[-3000:]
    assert "FAILED" in out and "is_stable_on_large_logits" in out, out[-3000:]
    assert "exp overflows" in out and "Traceback" not in out
    assert "(result ✗" in out
    assert "logit_scale=100" in out  # the example line names the scale it applied: it replays


def _hidden_markers(kit_root) -> set[tuple[str, str]]:
    import ast

    found = set()
    for path in sorted((kit_root / "hidden").glob("ch*/test_*.py")):
        assert path.name.startswith("test_hidden_"), f"{path}: hidden graders are named test_hidden_*.py"
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "exercise":
                exercise_id = node.args[0].value
                part = next(k.value.value for k in node.keywords if k.arg == "part")
                found.add((exercise_id, part))
    return found


def test_the_catalog_names_every_part_a_hidden_grader_grades(kit_root):
    from graders.catalog import HIDDEN_PARTS

    declared = {(e, p) for e, parts in HIDDEN_PARTS.items() for p in parts}
    assert declared == _hidden_markers(kit_root)


def test_a_run_without_the_hidden_graders_says_which_parts_it_could_not_check():
    from graders.gradebook import PASSED, Gradebook

    book = Gradebook(impl="solutions")
    for part in ("result", "ring"):
        book.record("ch2.ring_all_reduce", part, PASSED)
    book.record("ch2.broadcast", "result", PASSED)
    table = book.render()
    assert "hidden tests run at grading time" in table and "ch2.ring_all_reduce: result, ring" in table
    assert "ch2.broadcast:" not in table.split("grading time")[1]
    book.hidden_run = {"ch2.ring_all_reduce::result", "ch2.ring_all_reduce::ring"}
    assert "grading time" not in book.render()
    assert Gradebook.from_dict(book.to_dict()).hidden_run == book.hidden_run


def test_state_kept_outside_state_dict_loses_the_state_part_at_grading_time(kit_root, tmp_path):
    """``hidden/fixtures/ch3/state_outside_state_dict`` keeps Adam's moments in a dict of its own:
    right values and the right bytes, but a state_dict round trip loses them."""
    out = _pytest(
        kit_root,
        tmp_path,
        "hidden/fixtures/ch3/state_outside_state_dict",
        "exercises/ch3/test_optimizers.py::test_adam_keeps_two_moments",
        "hidden/ch3/test_hidden_optimizers.py::test_adam_resumes_from_its_state_dict",
    )
    assert "PASSED" in out and "test_optimizers.py::test_adam_keeps_two_moments" in out, out[-3000:]
    assert "FAILED" in out and "test_adam_resumes_from_its_state_dict" in out, out[-3000:]
    assert "state_dict round trip" in out and "Traceback" not in out
    assert "state ✗)" in out
