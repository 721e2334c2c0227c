"""The kit's words exist in both languages."""

from graders.errors import FailureKind
from graders.words.vocabulary import _WORDS, LANGS


def test_every_failure_kind_has_a_label_in_every_language():
    for kind in FailureKind:
        entry = _WORDS.get(f"kind:{kind}")
        assert entry is not None, f"no label for the failure kind {kind!r}"
        assert all(entry.get(lang) for lang in LANGS), entry


def test_every_part_of_every_exercise_has_a_vietnamese_name():
    from graders import catalog
    from graders.words.vocabulary import PARTS_VI

    parts = {part for exercise in catalog.EXERCISES.values() for part in exercise.parts}
    assert sorted(parts - set(PARTS_VI)) == []
