"""A part that failed is named in the reader's language where it is read as prose (the failure's
heading, the feedback); in English, and wherever a command takes it, it stays its id."""

from graders.errors import Failure, FailureKind
from graders.gradebook import FAILED, PASSED, Gradebook
from graders.grading.reports import feedback
from graders.grading.result import StudentResult
from graders.student.check import part_blocks
from graders.words.vocabulary import part_name


def _ring_failed() -> StudentResult:
    book = Gradebook()
    book.record("ch2.ring_all_gather", "result", PASSED)
    book.record("ch2.ring_all_gather", "ring", FAILED, Failure.of(FailureKind.WRONG, "rank 1 sent twice"))
    return StudentResult("ann", book)


def test_a_part_has_its_vietnamese_name_and_its_id_in_english():
    assert part_name("ring", "vi") == "vòng" and part_name("ring") == "ring"
    assert part_name("no such part", "vi") == "no such part"


def test_a_failed_part_is_named_in_vietnamese_in_the_feedback_and_in_english_as_its_id():
    result = _ring_failed()
    assert "\n[vòng] rank 1 sent twice" in feedback.exercise_text(result, "ch2.ring_all_gather", "vi")
    assert "\n[ring] rank 1 sent twice" in feedback.exercise_text(result, "ch2.ring_all_gather", "en")
    strong = [text for kind, text, *_ in feedback.blocks(result, "ch2", "vi") if kind == "strong"]
    assert any(text.startswith("vòng (0/1): ") for text in strong)
    strong = [text for kind, text, *_ in feedback.blocks(result, "ch2", "en") if kind == "strong"]
    assert "ring (0/1): wrong result" in strong


def test_a_failure_heading_names_its_parts_in_the_readers_language():
    row = next(r for r in _ring_failed().book.rows() if r.exercise == "ch2.ring_all_gather")
    assert any(line.startswith("✗ ch2.ring_all_gather [vòng] (0/1): ") for line in part_blocks(row, "vi"))
    assert any(line.startswith("✗ ch2.ring_all_gather [ring] (0/1): ") for line in part_blocks(row, "en"))
