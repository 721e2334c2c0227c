"""The misconceptions a student's own run can name, shipped with each chapter.

``graders/chapters/chN/misconceptions.json.gz`` holds, per exercise, what the reference and each
known mutant (``fixtures/mutants/chN.toml``) did on the exercise's diagnostic battery
(:mod:`graders.plugin.diagnosis`), and each mutant's description and hint in every language: no
code, so a student release can ship it. ``dtlab battery`` builds it
(:mod:`graders.authoring.known_battery`), and a kit test fails when what it was built from
(the chapter's solutions, mutants and graders) has changed since.

When a student's exercise fails, its battery is run on their code (the cases grading saw fail
are not run again: a hang costs no second deadline) and compared: the mutants that agree with
the student's code on every case where it differs from the reference's are its matches, and the
one that agrees on the most cases is the closest (the catalogue's order breaks ties). Records
are compared slimmed (:func:`slim`: floats to 5 significant digits, a tensor as its first
:data:`MAX_VALUES` values and two sums), the student's as the shipped ones.
"""

from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from graders.plugin import diagnosis
from graders.plugin.diagnosis import agree

FILE = "misconceptions.json.gz"
#: a mutant's record that is the reference's, stored once
SAME_AS_REFERENCE = "="
MAX_VALUES = 8
_CHAPTERS_DIR = Path(__file__).resolve().parent.parent / "chapters"


def path_of(chapter: str) -> Path:
    return _CHAPTERS_DIR / chapter / FILE


def slim(value):
    """A battery record as it is shipped: floats to 5 significant digits; a tensor's values as its
    first :data:`MAX_VALUES`, then the sum of all of them and the sum of their magnitudes (a
    change anywhere in the tensor still shows)."""
    if isinstance(value, float):
        return float(f"{value:.5g}")
    if isinstance(value, dict):
        if "tensor" in value and isinstance(value.get("values"), list):
            value = {k: v for k, v in value.items() if k != "values"} | _summary(value["values"])
        return {k: slim(v) for k, v in value.items()}
    if isinstance(value, list):
        return [slim(v) for v in value]
    return value


def _summary(values: list) -> dict:
    """A tensor's values, slimmed: ``head`` (the first :data:`MAX_VALUES`) and, where they are
    numbers, ``sums`` (of all of them, and of their magnitudes). Slimming again changes nothing."""
    numbers = [float(v) for v in values if isinstance(v, int | float)]
    if len(numbers) != len(values):
        return {"head": values[:MAX_VALUES]}
    return {"head": values[:MAX_VALUES], "sums": [sum(numbers), sum(abs(v) for v in numbers)]}


@dataclass(frozen=True)
class Misconception:
    name: str
    exercise: str
    description: dict[str, str]  # {lang: text}
    hint: dict[str, str]

    def describe(self, lang: str = "en") -> str:
        """What the student reads: what their code behaves like, then the hint."""
        function = self.exercise.split(".", 1)[1]
        description = self.description.get(lang) or self.description["en"]
        hint = self.hint.get(lang) or self.hint["en"]
        if lang == "vi":
            return f"{function} của bạn hoạt động giống một cài đặt mà {description}. Gợi ý: {hint}"
        return f"Your {function} behaves like one that {description}. Hint: {hint}"


@dataclass(frozen=True)
class Known:
    digest: str
    reference: dict[str, dict[str, dict]]  # exercise -> case key -> record
    mutants: dict[str, dict[str, dict]]  # exercise -> mutant -> case key -> record or "="
    catalogue: dict[str, Misconception]  # mutant -> its words, in the catalogue's order

    def records(self, exercise: str, name: str) -> dict[str, dict]:
        reference = self.reference[exercise]
        return {
            key: reference.get(key) if record == SAME_AS_REFERENCE else record
            for key, record in self.mutants[exercise][name].items()
        }

    def closest(self, exercise: str, student: dict[str, dict]) -> Misconception | None:
        """The known mutant closest to ``student``'s battery records, or None."""
        reference = self.reference.get(exercise)
        if not reference:
            return None
        student = {key: slim(record) for key, record in student.items()}
        differs = [k for k, r in student.items() if k in reference and not agree(r, reference[k])]
        if not differs:
            return None
        best = None
        for order, name in enumerate(n for n in self.catalogue if n in self.mutants.get(exercise, {})):
            records = self.records(exercise, name)
            if not all(k in records and agree(records[k], student[k]) for k in differs):
                continue
            agreeing = sum(1 for k, r in student.items() if k in records and agree(records[k], r))
            if best is None or (-agreeing, order) < best[0]:
                best = ((-agreeing, order), name)
        return self.catalogue[best[1]] if best else None


@functools.lru_cache(maxsize=16)
def load(chapter: str) -> Known | None:
    """The chapter's shipped batteries, or None when it has none (or it cannot be read)."""
    try:
        data = json.loads(gzip.decompress(path_of(chapter).read_bytes()))
        catalogue = {
            words["name"]: Misconception(
                words["name"], words["exercise"], words["description"], words["hint"]
            )
            for words in data["catalogue"]
        }
        return Known(data["digest"], data["reference"], data["mutants"], catalogue)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def encode(known: Known) -> bytes:
    """The shipped file's bytes (deterministic: the same batteries give the same bytes)."""
    data = {
        "digest": known.digest,
        "reference": known.reference,
        "mutants": known.mutants,
        "catalogue": [  # a list: the catalogue's order breaks ties
            {"name": m.name, "exercise": m.exercise, "description": m.description, "hint": m.hint}
            for m in known.catalogue.values()
        ],
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return gzip.compress(text.encode("utf-8"), mtime=0)


def name_all(book, harness, impl) -> None:
    """For each failing exercise of ``book`` whose chapter ships known misconceptions, the closest
    one its code behaves like, into ``book.named`` (the student's own run: ``pytest``, ``dtlab
    check``, ``dtlab watch``)."""
    from graders.words.vocabulary import LANGS

    tests: dict[str, dict] = {}
    for exercise_id in diagnosis.failing_exercises(book):
        chapter = exercise_id.split(".")[0]
        known = load(chapter)
        if known is None or exercise_id not in known.reference:
            continue
        if chapter not in tests:
            tests[chapter] = diagnosis.battery_tests(chapter)
        found = known.closest(exercise_id, diagnosis.run_battery(impl, harness, exercise_id, tests[chapter]))
        if found is not None:
            book.named[exercise_id] = {
                "name": found.name,
                "said": {lang: found.describe(lang) for lang in LANGS},
            }


def after_grading(book, harness, impl, diagnosed: dict | None) -> None:
    """What a run does about its failing exercises once graded: a batch's run (``diagnosed``: the
    battery tests of ``--dtlab-diagnose``) keeps their batteries for the teacher's naming; a
    student's run names their misconceptions at once (:func:`name_all`)."""
    if diagnosed is not None:
        diagnosis.diagnose(book, harness, impl, diagnosed)
    else:
        name_all(book, harness, impl)
