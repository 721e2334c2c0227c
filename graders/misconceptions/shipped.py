"""The misconceptions a student's own run can name, shipped with each chapter.

``graders/chapters/chN/misconceptions.json.gz`` holds, per exercise, what the reference and each
known mutant (``fixtures/mutants/chN.toml``) did on the exercise's diagnostic battery
(:mod:`graders.misconceptions.battery`), and each mutant's description and hint in every
language: no code, so a student release can ship it.

``dtlab battery`` builds it (:func:`write`): it runs the diagnostic battery of every exercise
that has mutants on the reference and on every mutant (minutes for a whole chapter), slims the
records, stores a mutant's record that is the reference's once, and writes the file with the
digest of what it was built from (:func:`digest`: the chapter's solutions, mutants and graders).
``dtlab battery --check`` only compares the digests (:func:`stale`): the kit's tests fail on a
stale file, as they do on a stale stub.

When a student's exercise fails, its battery is run on their code (the cases grading saw fail
are not run again: a hang costs no second deadline) and compared: the mutants that agree with
the student's code on every case where it differs from the reference's are its matches, and the
one that agrees on the most cases is the closest (the catalogue's order breaks ties;
:mod:`graders.misconceptions.matcher`). Records are compared slimmed (:func:`slim`: floats to 5
significant digits, a tensor as its first :data:`MAX_VALUES` values and two sums), the student's
as the shipped ones.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT, Impl
from graders.misconceptions import battery, matcher
from graders.misconceptions import mutants as mutant_catalogue

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

    def description_in(self, lang: str) -> str:
        """What code like the mutant does, in ``lang`` (English where it has no other)."""
        return self.description.get(lang) or self.description["en"]

    def describe(self, lang: str = "en") -> str:
        """What the student reads: what their code behaves like, then the hint."""
        function = self.exercise.split(".", 1)[1]
        description = self.description_in(lang)
        hint = self.hint.get(lang) or self.hint["en"]
        if lang == "vi":
            return f"{function} của bạn chạy như thể nó {description}. Gợi ý: {hint}"
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
        mine = self.mutants.get(exercise, {})
        in_order = {name: self.records(exercise, name) for name in self.catalogue if name in mine}
        name = matcher.closest({key: slim(record) for key, record in student.items()}, reference, in_order)
        return self.catalogue[name] if name is not None else None


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


# -- dtlab battery: building the file, and checking that it is current ----------------------------
def digest(chapter: str, kit_root: Path = KIT_ROOT) -> str:
    """What the chapter's batteries are built from: its solutions (and those of the chapters it
    builds on), its mutants, its graders (``graders/chapters/chN``) and its public tests."""
    files = [kit_root / "fixtures" / "mutants" / f"{chapter}.toml"]
    for folder in [kit_root / "solutions" / c for c in (*CHAPTERS[chapter].builds_on, chapter)]:
        files += sorted(folder.glob("*.py"))
    files += sorted(p for p in (kit_root / "graders" / "chapters" / chapter).rglob("*.py"))
    files += sorted((kit_root / "exercises" / chapter).glob("test_*.py"))
    found = hashlib.sha256()
    for path in files:
        text = path.read_bytes().replace(b"\r\n", b"\n")
        found.update(path.relative_to(kit_root).as_posix().encode() + b"\0" + text + b"\0")
    return found.hexdigest()[:16]


def stale(chapters: list[str], kit_root: Path = KIT_ROOT) -> list[str]:
    """The chapters with mutants whose shipped file is missing or was built from other files."""
    found = []
    for chapter in chapters:
        if not mutant_catalogue.load(chapter, kit_root):
            continue
        shipped = load.__wrapped__(chapter)
        if shipped is None or shipped.digest != digest(chapter, kit_root):
            found.append(chapter)
    return found


def build(chapter: str, harness, log=print) -> Known:
    """The chapter's batteries: the reference's and every mutant's, on every exercise with mutants."""
    tests = battery.battery_tests(chapter)
    reference_impl = Impl.resolve(KIT_ROOT / "solutions")
    every = mutant_catalogue.load(chapter)
    exercises = sorted({m.exercise for m in every})
    reference = {e: slim(battery.run_battery(reference_impl, harness, e, tests)) for e in exercises}
    found: dict[str, dict[str, dict]] = {e: {} for e in exercises}
    with tempfile.TemporaryDirectory(prefix="dtlab-battery-") as tmp:
        for mutant in every:
            folder = mutant_catalogue.materialize(mutant, Path(tmp) / mutant.name)
            records = slim(battery.run_battery(Impl.resolve(folder), harness, mutant.exercise, tests))
            base = reference[mutant.exercise]
            found[mutant.exercise][mutant.name] = {
                key: SAME_AS_REFERENCE if key in base and matcher.agree(record, base[key]) else record
                for key, record in records.items()
            }
            log(f"  {mutant.exercise}: {mutant.name}")
    return Known(digest(chapter), reference, found, catalogue(chapter))


def catalogue(chapter: str) -> dict[str, Misconception]:
    """Every mutant of ``chapter`` as a misconception (its words in both languages), by name, in
    the catalogue's order."""
    return {
        m.name: Misconception(
            m.name, m.exercise, {"en": m.description, "vi": m.description_vi}, {"en": m.hint, "vi": m.hint_vi}
        )
        for m in mutant_catalogue.load(chapter)
    }


def write(chapter: str, harness, log=print) -> Path:
    path = path_of(chapter)
    path.write_bytes(encode(build(chapter, harness, log)))
    load.cache_clear()
    return path
