"""``dtlab battery``: build each chapter's shipped misconceptions
(:mod:`graders.plugin.known_misconceptions`) from the reference solutions and the mutants.

It runs the diagnostic battery of every exercise that has mutants on the reference and on every
mutant (minutes for a whole chapter), slims the records, stores a mutant's record that is the
reference's once, and writes ``graders/chapters/chN/misconceptions.json.gz`` with the digest of
what it was built from (:func:`digest`). ``dtlab battery --check`` only compares the digests:
the kit's tests fail on a stale file, as they do on a stale stub.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from graders.authoring import mutants as mutant_catalogue
from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT, Impl
from graders.plugin import diagnosis
from graders.plugin import known_misconceptions as known


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
        shipped = known.load.__wrapped__(chapter)
        if shipped is None or shipped.digest != digest(chapter, kit_root):
            found.append(chapter)
    return found


def build(chapter: str, harness, log=print) -> known.Known:
    """The chapter's batteries: the reference's and every mutant's, on every exercise with mutants."""
    tests = diagnosis.battery_tests(chapter)
    reference_impl = Impl.resolve(KIT_ROOT / "solutions")
    every = mutant_catalogue.load(chapter)
    exercises = sorted({m.exercise for m in every})
    reference = {e: known.slim(diagnosis.run_battery(reference_impl, harness, e, tests)) for e in exercises}
    found: dict[str, dict[str, dict]] = {e: {} for e in exercises}
    with tempfile.TemporaryDirectory(prefix="dtlab-battery-") as tmp:
        for mutant in every:
            folder = mutant_catalogue.materialize(mutant, Path(tmp) / mutant.name)
            records = known.slim(diagnosis.run_battery(Impl.resolve(folder), harness, mutant.exercise, tests))
            base = reference[mutant.exercise]
            found[mutant.exercise][mutant.name] = {
                key: known.SAME_AS_REFERENCE if key in base and diagnosis.agree(record, base[key]) else record
                for key, record in records.items()
            }
            log(f"  {mutant.exercise}: {mutant.name}")
    return known.Known(digest(chapter), reference, found, catalogue(chapter))


def catalogue(chapter: str) -> dict[str, known.Misconception]:
    """Every mutant of ``chapter`` as a misconception (its words in both languages), by name, in
    the catalogue's order."""
    return {
        m.name: known.Misconception(
            m.name, m.exercise, {"en": m.description, "vi": m.description_vi}, {"en": m.hint, "vi": m.hint_vi}
        )
        for m in mutant_catalogue.load(chapter)
    }


def write(chapter: str, harness, log=print) -> Path:
    path = known.path_of(chapter)
    path.write_bytes(known.encode(build(chapter, harness, log)))
    known.load.cache_clear()
    return path
