"""The kit's words exist in every language."""

from graders.errors import FailureKind
from graders.words.vocabulary import LANGS, part_name, word


def test_every_failure_kind_has_a_label_in_every_language():
    for kind in FailureKind:
        entry = word(f"kind:{kind}")
        assert entry is not None, f"no label for the failure kind {kind!r}"
        assert all(entry.get(lang) for lang in LANGS), entry


def test_every_part_of_every_exercise_has_a_name_in_every_language():
    from graders import catalog

    parts = {part for exercise in catalog.EXERCISES.values() for part in exercise.parts}
    for lang in LANGS[1:]:
        unnamed = sorted(part for part in parts if part_name(part, lang) == part and len(part) > 4)
        named_alike = {"backward", "forward", "buckets", "capacity", "no_sync", "state", "scale", "unscale"}
        named_alike |= {"warmup", "groups", "zero3", "gradients"}
        assert sorted(set(unnamed) - named_alike) == [], f"parts without a {lang} name"
