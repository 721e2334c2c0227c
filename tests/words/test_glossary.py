"""The course's terms, one Vietnamese rendering each (``graders/words/glossary.toml``).

Every term says its English and its Vietnamese once; a term the lecturer's table of contents
names (``toc = true``) is rendered as the lecturer writes it; and the renderings use the modern
tone-mark placement (hóa, lũy, khóa, not hoá, luỹ, khoá). Every Vietnamese text the kit ships (the
catalogues' ``msgstr``, the mutants' descriptions and hints, the chapters' ``README.vi.md``,
``docs/vi/``) follows it: no rendering a
term's ``avoid`` names, no old tone mark, outside code, placeholders and link targets.
"""

import re
import tomllib

import pytest
from babel.messages import pofile

from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT

GLOSSARY = KIT_ROOT / "graders" / "words" / "glossary.toml"
TOC = KIT_ROOT.parent / "shared" / "course-toc.vi.txt"
#: the old placement: the mark on the first vowel of oa, oe, uy before no final consonant
OLD_TONE_MARKS = re.compile(r"(?i)(?:o[áàảãạ]|o[éèẻẽẹ]|(?<!q)u[ýỳỷỹỵ])(?![a-zđ])")
#: what is not prose: fenced and inline code, placeholders, link targets
NOT_PROSE = re.compile(r"```.*?```|`[^`\n]*`|\{[^{}\n]*\}|%\(\w+\)\w|\]\([^)\s]*\)", re.S)


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
    assert not OLD_TONE_MARKS.search("quý") and OLD_TONE_MARKS.search("thuỷ")


def _vietnamese_texts() -> dict[str, str]:
    """``{where: prose}`` of every Vietnamese text the kit ships, code and placeholders removed."""
    texts = {}
    for path in sorted(KIT_ROOT.glob("graders/**/vi.po")):
        with path.open("rb") as handle:
            for message in pofile.read_po(handle):
                strings = message.string if isinstance(message.string, tuple) else (message.string,)
                for n, text in enumerate(s for s in strings if s):
                    where = f"{path.relative_to(KIT_ROOT)}: {message.id!r:.60}"
                    texts[where + (f" [{n}]" if n else "")] = text
    for chapter in CHAPTERS.values():  # the chapters' titles, as progress shows them
        texts[f"{chapter.id}: title_vi"] = chapter.title_vi
    for path in sorted(KIT_ROOT.glob("fixtures/mutants/*.toml")):  # the misconceptions' words
        for mutant in tomllib.loads(path.read_text(encoding="utf-8")).get("mutant", []):
            for field in ("description_vi", "hint_vi"):
                if mutant.get(field):
                    texts[f"{path.relative_to(KIT_ROOT)}: {mutant['name']}.{field}"] = mutant[field]
    for path in [*KIT_ROOT.glob("exercises/*/README.vi.md"), *KIT_ROOT.glob("docs/vi/*.md")]:
        texts[str(path.relative_to(KIT_ROOT))] = path.read_text(encoding="utf-8")
    return {where: NOT_PROSE.sub(" ", " ".join(text.split())) for where, text in texts.items()}


def test_every_vietnamese_text_says_each_term_the_glossarys_way():
    avoided = [(t["en"], re.compile(p, re.I)) for t in _terms() for p in t.get("avoid", ())]
    texts = _vietnamese_texts()
    assert len(texts) > 1800
    found = [
        f"{where}: {pattern.pattern!r} ({en}) in …{text[max(0, m.start() - 30) : m.end() + 30]}…"
        for where, text in texts.items()
        for en, pattern in avoided
        for m in [pattern.search(text)]
        if m
    ]
    assert not found, "\n".join(found)


def test_every_vietnamese_text_places_its_tone_marks_the_modern_way():
    found = [
        f"{where}: {m.group()!r} in …{text[max(0, m.start() - 20) : m.end() + 20]}…"
        for where, text in _vietnamese_texts().items()
        for m in [OLD_TONE_MARKS.search(text)]
        if m
    ]
    assert not found, "\n".join(found)
