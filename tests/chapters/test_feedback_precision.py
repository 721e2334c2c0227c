"""Feedback that fits the failure: previews around the first mismatch, hints for the failing case,
no reproduction block for a part that is not started."""

import os
import subprocess
import sys

import pytest
import torch

from graders.chapters.ch2 import cases, checks, reference
from graders.errors import GradingFailure
from graders.judge.checks import assert_tensor_equal, preview_window
from graders.words.messages import say

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def _message(actual, expected) -> str:
    with pytest.raises(GradingFailure) as failure:
        assert_tensor_equal(actual, expected, what="rank 0's result")
    return str(failure.value)


def test_the_preview_is_centred_on_the_first_mismatch():
    expected = torch.arange(20)
    actual = expected.clone()
    actual[12] = -1
    message = _message(actual, expected)
    assert "flat positions 8..15 of 20, first mismatch at 12" in message
    assert "expected [… 8, 9, 10, 11, 12, 13, 14, 15, …]" in message
    assert "got      [… 8, 9, 10, 11, -1, 13, 14, 15, …]" in message


@pytest.mark.parametrize(
    "numel, at, window",
    [(20, 0, (0, 8)), (20, 19, (12, 20)), (20, 12, (8, 16)), (5, 4, (0, 5)), (9, 8, (1, 9))],
)
def test_the_window_stays_inside_the_tensor_and_holds_the_mismatch(numel, at, window):
    assert preview_window(numel, at) == window
    assert window[0] <= at < window[1]


def test_a_short_tensor_is_shown_whole_without_positions():
    message = _message(torch.tensor([1, 2, 9]), torch.tensor([1, 2, 3]))
    assert "flat positions" not in message and "…" not in message
    assert "expected [1, 2, 3]" in message


def _reduce_scatter_failure(case) -> GradingFailure:
    chunks = reference.reduce_scatter(case)
    run = {
        rank: {"returned": chunk + 1, "input_after": case.inputs[i]}
        for i, (rank, chunk) in enumerate(zip(case.ranks, chunks))
    }
    with pytest.raises(GradingFailure) as failure:
        checks.assert_reduce_scatter_result(run, case)
    return failure.value


def test_an_uneven_case_gets_the_remainder_hint():
    case = cases.build_collective(4, None, (5,), "int64")  # 5 = 2 + 1 + 1 + 1
    hint = _reduce_scatter_failure(case).hint
    assert "numel = 5 is not divisible by the group size 4" in hint
    assert "(2, 1, 1, 1)" in hint


def test_an_even_case_keeps_the_generic_hint():
    case = cases.build_collective(4, None, (8,), "int64")
    assert _reduce_scatter_failure(case).hint == say("ch2:reduce scatter:hint")
    assert checks.chunked_hint(cases.build_collective(4, None, (0,), "int64"), "generic") == "generic"
    assert "not divisible" in checks.chunked_hint(cases.build_collective(3, None, (7, 2), "int64"), "")


def test_a_part_that_is_not_started_has_no_seed_block(kit_root):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_")) and k != "CI"}
    env["PYTHONPATH"] = str(kit_root)
    # hypothesis's own profile is not derandomized: it would offer "@seed(...)" to reproduce
    args = ["exercises/ch5/test_zero_cost.py", "-k", "paper", "--hypothesis-profile", "default"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=kit_root,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert "not started" in done.stdout, done.stdout + done.stderr
    assert "@seed" not in done.stdout


def test_a_traffic_failure_leads_with_the_operation_that_differs(harness, tmp_path):
    """MoE gradients synced by all-gathers move the bytes an all-reduce would: the message leads
    with the all-gathers, not with a byte count that looks right (ch10's ``sync_dense_by_all_gather``)."""
    from graders.misconceptions import mutants

    mutant = next(m for m in mutants.load("ch10") if m.name == "sync_dense_by_all_gather")
    outcome = mutants.run_mutant(mutant, harness, tmp_path)
    message = outcome.failed_parts[mutant.part]
    assert "synced the gradients with all_gather, not with all-reduces alone" in message, message
