"""The class report (``graders.grading.reports.class_report``): its numbers come from the results, its
pictures are drawn, and it reads without them."""

import pytest

from graders import catalog
from graders.errors import Failure
from graders.gradebook import FAILED, PASSED, Gradebook
from graders.grading.reports import class_report
from graders.grading.reports.similarity import SimilarPair
from graders.grading.result import StudentResult

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def _student(sid: str, failing: dict[str, str], seconds: float = 1.0, error_kind: str = "") -> StudentResult:
    """Every part of chapter 2 passed but ``failing`` (``"exercise::part" -> kind``)."""
    book = Gradebook()
    for exercise in catalog.CHAPTERS["ch2"].exercises:
        for part in exercise.parts:
            key = f"{exercise.id}::{part}"
            if key in failing:
                book.record(exercise.id, part, FAILED, Failure.of(failing[key], "no"))
            else:
                book.record(exercise.id, part, PASSED)
    return StudentResult(sid, book, seconds=seconds, error_kind=error_kind)


CLASS = [
    _student("ann", {}),
    _student("ben", {"ch2.ring_all_reduce::result": "wrong", "ch2.ring_shift::result": "hang"}, 9.5),
    _student("cat", {"ch2.ring_all_reduce::result": "wrong"}, 3.0, error_kind="timeout"),
]


def test_the_numbers_come_from_the_results():
    rates = {(e, p): (passed, graded) for e, p, passed, graded in class_report.part_rates(CLASS, [
        catalog.exercise("ch2.ring_all_reduce"), catalog.exercise("ch2.ring_shift")])}  # fmt: skip
    assert rates[("ch2.ring_all_reduce", "result")] == (1, 3)
    assert rates[("ch2.ring_shift", "result")] == (2, 3)
    assert class_report.failure_kinds(CLASS) == {"wrong": 2, "hang": 1, "grading stopped: timeout": 1}


def test_the_report_has_every_section_and_its_pictures(tmp_path):
    similar = [SimilarPair("ann", "ben", 0.9, 0.8, 300)]
    found = {"ch2.ring_all_reduce": {"takes src as a group rank": ["ben", "cat"]}}
    path = class_report.write_report(CLASS, "ch2", tmp_path, similar=similar, misconceptions=found)
    page = path.read_text()
    headings = ("Scores", "Pass rate per part", "Failures by kind", "Misconceptions", "Most similar pairs")
    for heading in (*headings, "Slowest submissions"):
        assert f"<h2>{heading}</h2>" in page
    assert "3 submission(s)" in page and "takes src as a group rank" in page and "ben, cat" in page
    assert page.index("<td>ben</td><td>9.5</td>") < page.index("<td>cat</td><td>3.0</td><td>timeout</td>")
    for name in ("scores", "parts", "failures"):
        assert f'src="report/{name}.png"' in page
        assert (tmp_path / "report" / f"{name}.png").read_bytes().startswith(b"\x89PNG")


def test_without_matplotlib_the_tables_remain(tmp_path, monkeypatch):
    monkeypatch.setattr(class_report.figures, "matplotlib_available", lambda: False)
    page = class_report.write_report(CLASS, "ch2", tmp_path).read_text()
    assert "<img" not in page and "install the reports extra" in page and "Pass rate per part" in page
    assert "Most similar pairs" not in page and "Misconceptions" not in page


def test_the_pass_rate_table_names_the_parts_in_the_reports_language():
    rows = class_report._parts(CLASS, [catalog.exercise("ch2.ring_all_reduce")], "vi")
    assert [row[:2] for row in rows] == [["ch2.ring_all_reduce", "kết quả"], ["ch2.ring_all_reduce", "vòng"]]
    rows = class_report._parts(CLASS, [catalog.exercise("ch2.ring_all_reduce")], "en")
    assert [row[:2] for row in rows] == [["ch2.ring_all_reduce", "result"], ["ch2.ring_all_reduce", "ring"]]
