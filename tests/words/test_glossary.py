"""The course's terms, one Vietnamese rendering each (``graders/words/glossary.toml``).

Every term says its English and its Vietnamese once; a term the lecturer's table of contents
names (``toc = true``) is rendered as the lecturer writes it; and the renderings use the modern
tone-mark placement (hóa, lũy, khóa, not hoá, luỹ, khoá).
"""

import re
import tomllib

import pytest

from graders.impl import KIT_ROOT

GLOSSARY = KIT_ROOT / "graders" / "words" / "glossary.toml"
TOC = KIT_ROOT.parent / "shared" / "course-toc.vi.txt"
#: the old placement: the mark on the first vowel of oa, oe, uy before no final consonant
OLD_TONE_MARKS = re.compile(r"(?i)(?:o[áàảãạ]|o[éèẻẽẹ]|u[ýỳỷỹỵ])(?![a-zđ])")


def _terms() -> list[dict]:
    return tomllib.loads(GLOSSARY.read_text(encoding="utf-8"))["term"]


def test_every_term_has_one_rendering():
    terms = _terms()
    assert len(terms) >= 40
    english = [t["en"].casefold() for t in terms]
    assert len(english) == len(set(english)), "a term is listed twice"
    for term in terms:
        assert term["en"].strip() and term["vi"].strip(), term


@pytest.mark.skipif(not TOC.exists(), reason="the course's table of contents is not beside the kit")
def test_the_lecturers_terms_are_the_lecturers():
    toc = TOC.read_text(encoding="utf-8").casefold()
    missing = [t["vi"] for t in _terms() if t.get("toc") and t["vi"].casefold() not in toc]
    assert not missing, f"not in the course's table of contents: {missing}"


def test_the_modern_tone_mark_placement():
    old = [t["vi"] for t in _terms() if OLD_TONE_MARKS.search(t["vi"])]
    assert not old, old
    assert OLD_TONE_MARKS.search("tối ưu hoá") and not OLD_TONE_MARKS.search("tối ưu hóa")
    assert not OLD_TONE_MARKS.search("toán") and not OLD_TONE_MARKS.search("khóa")
