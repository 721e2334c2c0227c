"""The points table: a part that did not run (skipped, deselected, after ``-x``) is "not run", not ✗."""

import os
import subprocess
import sys

import pytest

from graders.errors import Failure
from graders.gradebook import FAILED, NOT_RUN, NOT_STARTED, PASSED, Gradebook

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def _book(**statuses) -> Gradebook:
    book = Gradebook()
    for part, status in statuses.items():
        book.record("ch2.ring_all_reduce", part, status)
    return book


def test_a_part_that_did_not_run_is_not_a_failure():
    book = _book(result=PASSED)  # ring and bandwidth deselected
    (row,) = book.rows()
    assert row.status == NOT_RUN
    assert "✗" not in book.render()
    assert "result ✓, ring not run" in book.render()
    assert "vòng chưa chạy" in book.render("vi")


def test_a_failure_next_to_a_part_that_did_not_run_shows_both():
    book = Gradebook()
    book.record("ch2.ring_reduce_scatter", "result", FAILED, Failure.of("wrong", "x"))  # ring deselected
    (row,) = book.rows()
    assert row.status == FAILED
    assert "result ✗, ring not run" in book.render()


def test_a_part_passes_only_if_every_test_of_it_ran_and_passed():
    book = _book(result=PASSED)
    book.record("ch2.ring_all_reduce", "result", NOT_RUN)  # a second test of the part, skipped
    assert book.parts["ch2.ring_all_reduce::result"].status == NOT_RUN
    book.record("ch2.ring_all_reduce", "result", FAILED, Failure.of("wrong", "x"))
    book.record("ch2.ring_all_reduce", "result", NOT_STARTED)
    assert book.parts["ch2.ring_all_reduce::result"].status == FAILED  # the worst status wins


def _pytest(kit_root, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_")) and k != "CI"}
    env["PYTHONPATH"] = str(kit_root)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=kit_root,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_deselected_parts_show_as_not_run(kit_root):
    chapter = "exercises/ch2/test_collectives.py"
    done = _pytest(kit_root, chapter, "-k", "test_broadcast and not tree", "--impl", "solutions")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ch2.broadcast       2/2" not in done.stdout
    line = next(line for line in done.stdout.splitlines() if line.startswith("ch2.broadcast"))
    assert line.split()[1:4] == ["1/2", "not", "run"], line
    assert "(result ✓, tree not run)" in line
    assert "✗" not in done.stdout


def test_parts_after_x_stopped_the_run_are_not_run(kit_root):
    chapter = "exercises/ch2/test_collectives.py"
    done = _pytest(kit_root, chapter, "-k", "ring_all_gather", "-x", "--lang", "vi")
    assert done.returncode == 1, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("ch2.ring_all_gather"))
    assert "chưa làm" in line and "✗" not in line, line


def test_a_banned_call_costs_every_part_of_its_exercise():
    """Whichever test met the banned call (a path only one part's examples take), every part of the
    exercise scores 0, those graded before and after it and those no test ran."""
    banned = Failure.of("banned", "rank 0 called torch.distributed.all_reduce, which is banned", rank=0)
    book = Gradebook()
    book.record("ch2.ring_all_reduce", "result", PASSED)
    book.record("ch2.ring_all_reduce", "ring", FAILED, banned)
    book.record("ch2.ring_all_reduce", "result", PASSED)  # a later test of the part
    book.record("ch2.broadcast", "result", PASSED)  # another exercise keeps its points
    rows = {row.exercise: row for row in book.rows()}
    assert rows["ch2.ring_all_reduce"].points == 0
    assert {p.kind for p in rows["ch2.ring_all_reduce"].parts} == {"banned"}
    assert rows["ch2.broadcast"].points == 1
    again = Gradebook.from_dict(book.to_dict())
    assert {row.exercise: row.points for row in again.rows()} == {r: row.points for r, row in rows.items()}
    scanned = Gradebook()
    scanned.record("ch2.reduce", "result", FAILED, Failure.of("integrity", "goes around the guard"))
    assert [p.status for p in scanned.rows()[0].parts] == [FAILED, FAILED]  # tree never ran


def test_the_class_gradebook_shows_every_exercise_name_whole():
    """Long exercise names are broken after underscores over stacked header lines, never cut."""
    from types import SimpleNamespace

    from graders import catalog
    from graders.grading.batch import render_gradebook

    exercises = catalog.CHAPTERS["ch6"].exercises
    book = SimpleNamespace(rows=lambda: [], total=(0, catalog.CHAPTERS["ch6"].points))
    table = render_gradebook([SimpleNamespace(student_id="an", book=book)], "ch6")
    header = table.split("\n-")[0].splitlines()
    first = len("student") + 2  # the student column
    names = [
        "".join(line[first + 11 * i : first + 11 * (i + 1)].strip() for line in header)
        for i in range(len(exercises))
    ]
    assert names == [e.id.split(".", 1)[1] for e in exercises]
    assert header[-1].startswith("student") and header[-1].endswith("total")
    assert table.splitlines()[-1].startswith("an")
