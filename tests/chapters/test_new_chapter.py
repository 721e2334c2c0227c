"""A chapter declares itself: a new one is a few folders and nothing else.

A copy of the kit gets the throwaway chapter ``ch99`` of ``fixtures/new_chapter/``, whose files
lie only in ``graders/chapters/ch99/``, ``solutions/ch99/``, ``exercises/ch99/``, ``hidden/ch99/``
and ``fixtures/mutants/ch99.toml``, and makes what an author makes with two commands: its stubs
(``dtlab stubs``) and its shipped misconceptions (``dtlab battery ch99``). The copy then grades
it, lists it in ``dtlab progress``, runs its mutants and its coverage, releases it, and every
suite that goes over the catalogue's chapters takes it in, as for any other chapter.
"""

import json
import shutil

import pytest

from graders.impl import KIT_ROOT

TEMPLATE = KIT_ROOT / "fixtures" / "new_chapter"
#: the only places a new chapter may touch
ALLOWED = (
    "graders/chapters/ch99/",
    "solutions/ch99/",
    "exercises/ch99/",
    "hidden/ch99/",
    "fixtures/mutants/ch99.toml",
)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kit(tmp_path_factory, copy_kit, run_in):
    """A copy of the kit with ch99 laid over it."""
    copy = copy_kit(tmp_path_factory.mktemp("kit"))
    for path in sorted(TEMPLATE.rglob("*")):
        relative = path.relative_to(TEMPLATE).as_posix()
        if path.is_dir() or relative == "README.md":
            continue
        assert relative.startswith(ALLOWED), f"the new chapter touches {relative}"
        target = copy / relative
        assert not target.exists(), f"{relative} is a file of the kit already"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    wrote = run_in(copy, "-m", "graders", "stubs").stdout.split()
    # the stub, generated from the solution, and the stubs' digests (exercises/pristine.json)
    assert wrote[1::2] == ["exercises/ch99/total.py", "exercises/pristine.json"], wrote
    built = run_in(copy, "-m", "graders", "battery", "ch99").stdout  # its mutants, as misconceptions
    assert "wrote graders/chapters/ch99/misconceptions.json.gz" in built, built
    return copy


def test_the_new_chapter_is_graded(kit, run_in, tmp_path):
    report = tmp_path / "report.json"
    run_in(
        kit,
        "-m",
        "pytest",
        "exercises/ch99",
        "hidden/ch99",
        "--impl",
        "solutions",
        f"--dtlab-report={report}",
    )
    book = json.loads(report.read_text())
    assert (book["score"], book["max_score"]) == (1, 1)
    assert book["hidden_run"] == ["ch99.ring_total::result"]
    stubs = run_in(kit, "-m", "pytest", "exercises/ch99", "-q", ok=(1,)).stdout
    assert "ch99.ring_total" in stubs and "not started" in stubs


def test_dtlab_progress_lists_it(kit, run_in, tmp_path):
    out = run_in(
        kit, "-m", "graders", "progress", "ch99", "--impl", "solutions", "--state", str(tmp_path / "p.json")
    )
    row = next(line for line in out.stdout.splitlines() if line.lstrip().startswith("ch99"))
    assert "1/1" in row and "A throwaway chapter" in row


def test_its_mutants_and_coverage_are_tested(kit, run_in):
    out = run_in(
        kit,
        *("-m", "pytest", "tests/chapters/test_mutants.py", "tests/chapters/test_coverage.py", "-k", "ch99"),
        *("--impl", "solutions", "--hypothesis-profile", "ci", "--dtlab-deadline", "5", "-q", "-rA"),
    ).stdout
    passed = [line for line in out.splitlines() if line.startswith("PASSED") and "ch99" in line]
    assert any("test_coverage.py" in line for line in passed), out[-2000:]
    mutant_tests = {line.split("::")[1].split("[")[0] for line in passed if "test_mutants.py" in line}
    assert {"test_every_exercise_has_three_mutants", "test_mutant_is_caught"} <= mutant_tests, out[-2000:]


#: every suite that goes over the catalogue's chapters: its cases of ch99 (their ids name it) and
#: its tests of every chapter at once (by name, in EVERY_CHAPTER)
CATALOGUE_SUITES = (
    "tests/words/test_hints.py",
    "tests/words/test_messages.py",
    "tests/words/test_i18n.py",
    "tests/unit/test_layers.py",
    "tests/unit/test_example_order.py",
    "tests/student/test_student_commands.py",
    "tests/student/test_misconception_hints.py",
    "tests/chapters/test_cheats.py",
    "tests/chapters/test_hidden.py",
    "tests/chapters/test_stubs.py",
    "tests/grading/test_classroom.py",
    "tests/grading/test_workspace.py",
)
EVERY_CHAPTER = (
    "unknown",  # a chapter or an exercise that does not exist: what does is listed
    "names_accepted",
    "every_part_of_every_exercise",  # every part has a name in every language
    "catalog_names_every_part",  # the hidden graders' parts are declared
    "in_sync_with_solutions",  # the stubs
    "shipped_batteries_are_current",  # the misconceptions
    "whole_course_template",  # the GitHub Classroom workflow's points
    "workspace_holds_the_students_files",
)


def test_the_suites_that_list_the_chapters_read_them_from_the_catalogue(kit, run_in):
    """The tests that go over every chapter, or name a chapter that does not exist, take ch99 in
    (the red team's samples too: a copy has none, and ch99 no verdicts)."""
    out = run_in(
        kit, *("-m", "pytest", *CATALOGUE_SUITES, "-q", "-rA", "-k", " or ".join(("ch99", *EVERY_CHAPTER)))
    ).stdout
    passed = [line for line in out.splitlines() if line.startswith("PASSED")]
    assert all(any(suite in line for line in passed) for suite in CATALOGUE_SUITES), out[-3000:]
    assert all(any(name in line for line in passed) for name in EVERY_CHAPTER), out[-3000:]
    assert sum("ch99" in line for line in passed) >= 15, out[-3000:]


def test_it_is_released(kit, run_in, tmp_path):
    out = tmp_path / "release"
    run_in(kit, "-m", "graders", "release", str(out))
    assert (out / "exercises/ch99/total.py").is_file() and (out / "exercises/ch99/test_total.py").is_file()
    assert "raise NotImplementedError" in (out / "exercises/ch99/total.py").read_text()
    assert (out / "graders/chapters/ch99/chapter.py").is_file()
    assert not (out / "hidden").exists() and not (out / "solutions").exists()
    assert not (out / "fixtures/mutants/ch99.toml").exists()
