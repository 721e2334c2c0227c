"""Every exercise has graded hints and a recap in both languages, none gives an answer line away,
and ``dtlab hint`` steps through the levels, remembering them in a state file it can replace."""

import json
import re

import pytest

from graders import catalog
from graders.authoring.stubs import solution_lines
from graders.cli import hint as hint_command
from graders.cli.main import main
from graders.words import hints
from graders.words.vocabulary import LANGS

#: the chapter after the catalogue's last
NOT_A_CHAPTER = f"ch{max(int(chapter.removeprefix('ch')) for chapter in catalog.CHAPTERS) + 1}"

EXERCISES = sorted(catalog.EXERCISES)
#: answer lines shorter than this are generic (``return schedule``) and may appear anywhere
TRIVIAL = 25
#: letters that only Vietnamese writes (ă, đ, ơ, ư, the dot below, the hook above): a Vietnamese text has some
VIETNAMESE = re.compile("[ăđơưạặậẹệịọộợụựỵảẳẩẻểỉỏổởủửỷ]", re.IGNORECASE)


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_exercise_has_graded_hints_and_a_recap_in_both_languages(exercise):
    levels = {lang: hints.hints(exercise, lang) for lang in LANGS}
    assert len(levels["en"]) >= 2 and hints.levels(exercise) == len(levels["en"])
    assert len(levels["vi"]) == len(levels["en"])
    for en, vi in zip(levels["en"], levels["vi"], strict=True):
        assert en.strip() and vi.strip() and en != vi
        assert VIETNAMESE.search(vi), vi
    recaps = {lang: hints.recap(exercise, lang) for lang in LANGS}
    assert recaps["en"] != recaps["vi"] and VIETNAMESE.search(recaps["vi"])
    for lang, text in recaps.items():
        lines = [line for line in text.splitlines() if line.strip()]
        assert 5 <= len(lines) <= 10, f"{exercise} ({lang}): a recap is a few lines, not {len(lines)}"


def test_the_catalogues_name_only_catalog_exercises():
    from graders.words import catalogue

    for chapter in catalog.CHAPTERS.values():
        names = {e.id.split(".", 1)[1] for e in chapter.exercises}
        keys = [key for key in catalogue.domain(chapter.id) if key.startswith(("hint:", "recap:"))]
        assert {key.split(":")[1] for key in keys} == names, chapter.id
        assert {key.split(":")[1] for key in keys if key.startswith("recap:")} == names, chapter.id


@pytest.mark.parametrize("chapter", sorted(catalog.CHAPTERS))
def test_no_hint_or_recap_holds_a_line_of_the_answers(chapter, kit_root):
    answers = {
        _squeezed(line)
        for path in sorted((kit_root / "solutions" / chapter).glob("*.py"))
        for line in solution_lines(path.read_text())
        if len(line.strip()) >= TRIVIAL
    }
    assert answers
    for exercise in (e.id for e in catalog.CHAPTERS[chapter].exercises):
        for lang in LANGS:
            for text in [*hints.hints(exercise, lang), hints.recap(exercise, lang)]:
                leaked = [line for line in answers if line in _squeezed(text)]
                assert not leaked, f"{exercise} ({lang}) quotes the answer: {leaked[0]}"


def test_unknown_exercises_and_languages_are_refused_clearly():
    with pytest.raises(KeyError, match="ch2 has ch2.ring_shift"):
        hints.hints("ch2.ring_alll_reduce")
    with pytest.raises(KeyError, match="chapters: " + ", ".join(catalog.CHAPTERS)):
        hints.recap(f"{NOT_A_CHAPTER}.nothing")
    with pytest.raises(ValueError, match="choose from en, vi"):
        hints.recap("ch2.ring_shift", "fr")


# -- dtlab hint ----------------------------------------------------------------------------------------


@pytest.fixture
def state(tmp_path, monkeypatch):
    path = tmp_path / ".dtlab" / "hints.json"
    monkeypatch.setattr(hint_command, "STATE_FILE", path)
    monkeypatch.delenv("DTLAB_LANG", raising=False)
    return path


def _hint(capsys, *argv):
    code = main(["hint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_each_call_shows_the_next_level_and_stays_at_the_last(state, capsys):
    levels = hints.hints("ch2.ring_all_reduce")
    shown = []
    for _ in range(len(levels) + 1):
        code, out, _ = _hint(capsys, "ch2", "ring_all_reduce")
        assert code == 0
        shown.append(int(re.search(r"hint (\d) of (\d)", out)[1]))
        assert _squeezed(levels[shown[-1] - 1]) in _squeezed(out)
    assert shown == [*range(1, len(levels) + 1), len(levels)]
    assert "again for hint 2 of" not in out and "last hint" in out
    assert json.loads(state.read_text())["seen"] == {"ch2.ring_all_reduce": len(levels)}
    code, out, _ = _hint(capsys, "ch2", "ch2.ring_shift")  # the full id, another exercise: level 1
    assert code == 0 and "hint 1 of" in out and "dtlab hint ch2 ring_shift` again for hint 2" in out


def test_level_and_all(state, capsys):
    levels = hints.hints("ch7.one_f_one_b_schedule", "vi")
    code, out, _ = _hint(capsys, "ch7", "one_f_one_b_schedule", "--level", "2", "--lang", "vi")
    assert code == 0 and "gợi ý 2/" in out and _squeezed(levels[1]) in _squeezed(out)
    code, out, _ = _hint(capsys, "ch7", "one_f_one_b_schedule")  # goes on after the level seen
    assert "hint 3 of 3" in out
    code, out, _ = _hint(capsys, "ch5", "Zero1Optimizer", "--all")  # the class name works too
    assert code == 0 and "theory recap" in out
    assert _squeezed(hints.recap("ch5.zero1")) in _squeezed(out)
    assert all(_squeezed(text) in _squeezed(out) for text in hints.hints("ch5.zero1"))
    code, _, err = _hint(capsys, "ch5", "zero1", "--level", "9")
    assert code == 2 and "no level 9" in err


def test_the_language_follows_dtlab_lang(state, capsys, monkeypatch):
    monkeypatch.setenv("DTLAB_LANG", "vi")
    code, out, _ = _hint(capsys, "ch4", "ddp", "--recap")
    assert code == 0 and "tóm tắt lý thuyết" in out
    assert not state.exists()  # the recap alone is no level seen


def test_an_unknown_exercise_or_chapter_is_named_with_what_exists(state, capsys):
    code, out, err = _hint(capsys, "ch2", "ring_allreduce")
    assert code == 2 and not out
    assert "ch2 has no exercise 'ring_allreduce'" in err and "ring_all_reduce, all_to_all" in err
    code, _, err = _hint(capsys, "ch2", "ch4.ddp")
    assert code == 2 and "ch2 has no exercise 'ch4.ddp'" in err
    code, _, err = _hint(capsys, NOT_A_CHAPTER, "anything")
    assert code == 2 and ", ".join(catalog.CHAPTERS) in err


@pytest.mark.parametrize("content", ["{not json", '["a list"]', '{"seen": {"ch2.ring_shift": "two"}}', ""])
def test_a_corrupt_state_file_is_replaced(state, capsys, content):
    state.parent.mkdir(parents=True)
    state.write_text(content)
    code, out, err = _hint(capsys, "ch2", "ring_shift")
    assert code == 0 and "hint 1 of" in out and "could not be read" in err
    assert json.loads(state.read_text()) == {"seen": {"ch2.ring_shift": 1}}


def test_an_earlier_level_asked_for_says_what_follows_it(state, capsys):
    """After the last level, ``--level 1`` is not "the last hint": the footer follows the level
    shown (in both languages)."""
    levels = len(hints.hints("ch2.ring_all_reduce"))
    for _ in range(levels):
        _hint(capsys, "ch2", "ring_all_reduce")
    for lang, last in (("en", "last hint"), ("vi", None)):
        code, out, _ = _hint(capsys, "ch2", "ring_all_reduce", "--level", "1", "--lang", lang)
        assert code == 0
        assert "--level 2" in out
        if last:
            assert last not in out and "hint 2 of" in out
    code, out, _ = _hint(capsys, "ch2", "ring_all_reduce", "--level", str(levels))
    assert "last hint" in out
