"""Every exercise's title in every language: the kit's words ``exercise title:<id>``, their English
the catalogue's title (a title changed in ``graders/chapters/chN/chapter.py`` must be said again)."""

from graders import catalog
from graders.gradebook import Gradebook
from graders.grading.reports import feedback
from graders.grading.result import StudentResult
from graders.words.vocabulary import exercise_title, word


def test_every_title_has_its_words_and_they_say_the_catalogues_title():
    for exercise in catalog.EXERCISES.values():
        said = word(f"exercise title:{exercise.id}")
        assert said is not None, f"{exercise.id}: no word 'exercise title:{exercise.id}'"
        assert said["en"] == exercise.title, f"{exercise.id}: the word says an older title"
        assert exercise_title(exercise, "en") == exercise.title
        assert said.get("vi"), f"{exercise.id}: no Vietnamese title"


def test_a_title_reads_in_vietnamese_where_a_student_sees_it():
    ring = catalog.exercise("ch2.ring_shift")
    assert exercise_title(ring, "vi") == "gửi sang phải, nhận từ trái"
    empty = StudentResult("ann", Gradebook())
    assert feedback.exercise_text(empty, "ch2.ring_shift", "vi") == (
        "ch2.ring_shift · gửi sang phải, nhận từ trái: chưa được chấm"
    )
    assert (
        feedback.exercise_text(empty, "ch2.ring_shift")
        == "ch2.ring_shift · send right, receive left: not graded"
    )
