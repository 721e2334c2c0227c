"""The kit's HTML pages (``graders.grading.reports.pages``): the class report, the similarity page and
a student's feedback are templates that escape whatever a submission put in them, and speak the
run's language."""

import re
from pathlib import Path

import pytest

from graders.errors import Failure
from graders.gradebook import FAILED, PASSED, Gradebook
from graders.grading.reports import class_report, feedback, pages, similarity_page
from graders.grading.reports.similarity import SimilarPair
from graders.grading.result import StudentResult

TEMPLATES = Path(pages.__file__).parent / "templates"
#: what a student could name themselves, write in a file, or make a grader quote
SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
HOSTILE = f"{SCRIPT}{ATTRIBUTE}\x1b[2J"


def _result(student: str, message: str, seconds: float = 2.5) -> StudentResult:
    book = Gradebook(impl=student, profile="grading")
    book.record("ch2.ring_shift", "result", PASSED)
    book.record("ch2.broadcast", "tree", FAILED, Failure.of("wrong", message))
    book.integrity = {"ch2.broadcast": [f"collectives.py: {HOSTILE}"]}
    return StudentResult(student, book, seconds=seconds, notes=[f"ignored {HOSTILE}.py"])


def _pages(folder: Path, lang: str, student: str, text: str) -> dict[str, str]:
    """Every page, written in ``lang`` for a class whose student ``student`` wrote ``text``."""
    results = [_result(student, text, 12345.5), _result("an", "expected 3")]
    pair = SimilarPair(student, "an", 0.9125, 0.75, 120)
    found = {"ch2.broadcast": {f"sends {HOSTILE}": [student]}}
    report = class_report.write_report(
        results, "ch2", folder, similar=[pair], misconceptions=found, lang=lang
    )
    side = similarity_page.SideBySide(pair, [("x = 1\n", False), (text, True)], [(text, True)])
    similarity = folder / "similarity.html"
    similarity_page.write(
        similarity, "ch2", lang, submissions=2, threshold=0.7, min_tokens=100, sides=[side], scores=[]
    )
    return {
        "class report": report.read_text(),
        "similarity": similarity.read_text(),
        "feedback": feedback.html_page(results[0], "ch2", lang),
    }


@pytest.fixture(autouse=True)
def no_pictures(monkeypatch):
    """Tables only: the pictures are drawn in test_class_report (graders tier), not here."""
    monkeypatch.setattr(class_report.figures, "matplotlib_available", lambda: False)


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_what_a_student_wrote_comes_out_escaped_in_every_page(tmp_path, lang):
    for name, page in _pages(tmp_path, lang, HOSTILE, f"expected 3\n{HOSTILE}").items():
        assert "<script" not in page and "<img src=x" not in page, name
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page, name
        assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in page, name
        assert "\x1b" not in page, name  # control characters are stripped before escaping


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", {
            "class report": ["class report", "Failures by kind", "Slowest submissions", "12,345.5", "91%"],
            "similarity": ["similar submissions", "Flagged pairs", "The matching code", "70%"],
            "feedback": ["exercise", "status", "integrity notes"],
        }),
        ("vi", {
            "class report": ["báo cáo của lớp", "Các loại lỗi", "Các bài nộp chấm lâu nhất", "12.345,5"],
            "similarity": ["các bài nộp giống nhau", "Các cặp được gắn cờ", "Phần code trùng nhau", "70%"],
            "feedback": ["bài tập", "trạng thái", "ghi chú liêm chính"],
        }),
    ],
)  # fmt: skip
def test_every_page_speaks_the_runs_language(tmp_path, lang, words):
    for name, page in _pages(tmp_path, lang, "binh", "expected 3").items():
        assert f'<html lang="{lang}">' in page, name
        for word in words[name]:
            assert word in page, (name, word)


def test_no_template_writes_words_of_its_own():
    """Every heading, column name and sentence of the pages goes through the kit's words: outside
    tags and template code, a template writes only the kit's and files' names."""
    names = {"dtlab", "similarity", "html"}  # "dtlab · ch2 · ...", "<a ...>similarity.html</a>"
    for template in TEMPLATES.glob("*.html"):
        text = re.sub(r"{[{%#].*?[}%#]}", "", template.read_text(), flags=re.DOTALL)
        prose = re.sub(r"<[^>]*>", " ", text.split("</style>")[-1])
        assert set(re.findall(r"[A-Za-z]{3,}", prose)) <= names, template.name


def test_every_template_is_in_the_wheel():
    """pyproject.toml's package data ships ``templates/*.html``: no template has another name."""
    assert sorted(p.name for p in TEMPLATES.iterdir()) == sorted(p.name for p in TEMPLATES.glob("*.html"))


def test_no_template_marks_anything_safe():
    """Escaping is the environment's: no template turns it off, and no module builds HTML but
    ``pages.data_image``."""
    for template in TEMPLATES.glob("*.html"):
        assert not re.search(r"\|\s*safe|autoescape\s+false|Markup", template.read_text()), template.name
    modules = Path(pages.__file__).parent.glob("*.py")
    assert [m.name for m in modules if "Markup(" in m.read_text()] == ["pages.py"]


def test_the_code_is_cut_into_runs_that_keep_every_character():
    code = "import torch\nx = 1\ny = 2\n"
    assert similarity_page.runs(code, [[0, 12], [13, 18]]) == [  # starts, ends: two regions overlap
        ("import torch\n", True), ("x = 1", True), ("\ny = 2\n", False),
    ]  # fmt: skip
    assert similarity_page.runs(code, [[], []]) == [(code, False)]


def test_an_inline_picture_escapes_its_description():
    image = str(pages.data_image(b"\x89PNG", ATTRIBUTE))
    assert image.startswith('<img src="data:image/png;base64,iVBORw==" alt=')
    assert image.endswith('alt="&#34;&gt;&lt;img src=x onerror=alert(1)&gt;">')


def test_a_name_the_template_needs_and_is_not_given_is_an_error():
    import jinja2

    with pytest.raises(jinja2.UndefinedError):
        pages.render("feedback.html", "en", blocks=[])
