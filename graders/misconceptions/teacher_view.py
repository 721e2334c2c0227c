"""The teacher's view: which known mutant each failing student's code behaves like, for a class.

The mutants (``fixtures/mutants/chN.toml``) are a catalogue of plausible misconceptions, each
proven caught by the graders. The student's code, the reference solution and every mutant of
the exercise meet the same diagnostic battery (:mod:`graders.misconceptions.battery`), and every
mutant that matches the student's code is named (:func:`graders.misconceptions.matcher.matching`;
none: "unrecognised"), in the class table (:func:`class_table`) and the feedback.

The student's battery runs in the sandbox with their grading (``--dtlab-diagnose``); the
reference's and the mutants' are the kit's own code: the chapter's shipped batteries
(``graders/chapters/chN/misconceptions.json.gz``, the ones the student's own run names from) when
they were built from the kit as it is, or else run once per class in the teacher's process (a
kit whose graders or mutants a teacher changed), kept in a cache keyed by the digest of the
chapter's solutions, graders and mutants.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT, Impl
from graders.infra.files import write_atomic
from graders.misconceptions import battery, mutants, shipped
from graders.misconceptions.matcher import matching
from graders.misconceptions.shipped import catalogue, slim
from graders.plugin.run_spec import GradingRun
from graders.words.vocabulary import t

#: where the known batteries are kept, by chapter and the digest of what they depend on
CACHE_DIR = KIT_ROOT / ".cache" / "battery"


# -- the kit's side: the reference's and the mutants' batteries, once per class ------------------
def known_batteries(chapter: str, exercises: set[str], harness, cache_dir: Path | None = None) -> dict:
    """``{"reference": {exercise: records}, "mutants": {exercise: {name: records}}}`` for
    ``exercises`` of ``chapter``: the shipped ones (``"slim": True``: a student's records are
    slimmed alike to be compared) when they are up to date, else from the cache when the kit has
    not changed, else run now."""
    shipped = _shipped(chapter, exercises)
    if shipped is not None:
        return shipped
    path = cache_dir / f"battery-{chapter}-{kit_digest(chapter)}.json" if cache_dir else None
    cached = json.loads(path.read_text()) if path and path.exists() else {"reference": {}, "mutants": {}}
    missing = sorted(exercises - set(cached["reference"]))
    if missing:
        fresh = _run_known(chapter, set(missing), harness)
        cached["reference"].update(fresh["reference"])
        cached["mutants"].update(fresh["mutants"])
        if path:
            write_atomic(path, json.dumps(cached))  # two classes graded at once see one or the other
    return cached


def _shipped(chapter: str, exercises: set[str]) -> dict | None:
    """The chapter's shipped batteries for ``exercises``, if they were built from the kit as it
    is and cover them."""
    found = shipped.load(chapter)
    if found is None or found.digest != shipped.digest(chapter):
        return None
    if not exercises <= set(found.reference):
        return None
    return {
        "slim": True,
        "reference": {e: found.reference[e] for e in exercises},
        "mutants": {e: {name: found.records(e, name) for name in found.mutants[e]} for e in exercises},
    }


def _run_known(chapter: str, exercises: set[str], harness) -> dict:
    tests = battery.battery_tests(chapter)
    reference = Impl.resolve(KIT_ROOT / "solutions")
    found = {"reference": {}, "mutants": {}}
    for exercise in sorted(exercises):
        found["reference"][exercise] = battery.run_battery(reference, harness, exercise, tests)
        found["mutants"][exercise] = {}
    with tempfile.TemporaryDirectory(prefix="dtlab-mutant-") as tmp:
        for mutant in mutants.load(chapter):
            if mutant.exercise not in exercises:
                continue
            impl = Impl.resolve(mutants.materialize(mutant, Path(tmp) / mutant.name))
            found["mutants"][mutant.exercise][mutant.name] = battery.run_battery(
                impl, harness, mutant.exercise, tests
            )
    return found


def kit_digest(chapter: str) -> str:
    """A digest of what the known batteries depend on: the chapter's solutions (and those it builds
    on), its public graders (``exercises/chN/test_*.py``, not the stubs beside them, which a
    teacher's working tree may have edited), its mutants, the kit's graders package and the kit's
    version."""
    digest = hashlib.sha256()
    try:
        digest.update(version("dtlab").encode() + b"\0")
    except PackageNotFoundError:  # a copy of the kit that is not installed
        pass
    folders = [KIT_ROOT / "solutions" / c for c in (*CHAPTERS[chapter].builds_on, chapter)]
    folders.append(KIT_ROOT / "graders")
    files = [KIT_ROOT / "fixtures" / "mutants" / f"{chapter}.toml"]
    files += sorted((KIT_ROOT / "exercises" / chapter).glob("test_*.py"))
    for folder in folders:
        files += sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(KIT_ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def name_all(
    results: list, chapter: str, harness, cache_dir: Path | None = None
) -> dict[str, dict[str, list[str]]]:
    """``{student: {exercise: [mutant names]}}`` for every failing exercise a student's battery
    came back for; ``[]`` is "unrecognised". Each result's ``misconceptions`` is set too."""
    wanted = {exercise for r in results for exercise in r.book.diagnostics}
    if not wanted:
        return {}
    known = known_batteries(chapter, wanted, harness, cache_dir)
    as_shipped = slim if known.get("slim") else (lambda record: record)
    named: dict[str, dict[str, list[str]]] = {}
    for result in results:
        found = {
            exercise: matching(
                {key: as_shipped(record) for key, record in records.items()},
                known["reference"][exercise],
                known["mutants"][exercise],
            )
            for exercise, records in sorted(result.book.diagnostics.items())
        }
        result.misconceptions = found
        named[result.student_id] = found
    return named


def name_all_in_a_pool(results: list, run: GradingRun, cache_dir: Path) -> dict:
    """:func:`name_all` for the class's grading ``run`` (its chapter), with worker worlds of its
    own, of the run's deadline and backend (the kit's code only: no sandbox needed)."""
    from graders.plugin.harness import Harness  # torch: only when a pool is made here
    from graders.world.pool import WorldPool

    pool = WorldPool(deadline=run.deadline, backend=run.backend)
    try:
        return name_all(results, run.chapters[0], Harness(pool), cache_dir)
    finally:
        pool.close()


def class_table(
    named: dict[str, dict[str, list[str]]], chapter: str, lang: str = "en"
) -> dict[str, dict[str, list[str]]]:
    """``{exercise: {misconception: [students]}}``: the description of each named mutant (or
    "unrecognised"), in ``lang``, and who behaves like it."""
    known = catalogue(chapter)
    table: dict[str, dict[str, list[str]]] = {}
    for student, exercises in named.items():
        for exercise, names in exercises.items():
            labels = [known[n].description_in(lang) for n in names if n in known] or [t("unrecognised", lang)]
            for label in labels:
                table.setdefault(exercise, {}).setdefault(label, []).append(student)
    return table
