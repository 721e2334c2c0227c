"""``dtlab progress`` and ``dtlab check``: the student's view of every chapter, graded only where
something changed, and the teaching feedback of one chapter or exercise.

Real grading is kept to two runs: ``check ch2`` on the solutions (every part passes, and the
chapter's result lands in the progress file), and ``check`` of one exercise of a sample
submission with a bug. Chapter 7's stubs are "not started" by their digest, with nothing run.
Everything else replaces the grading run with a counted fake.
"""

import contextlib
import io
import json
import shutil
import subprocess
import sys
from dataclasses import replace

import pytest

from graders.catalog import CHAPTERS
from graders.errors import Failure
from graders.gradebook import FAILED, PASSED, Gradebook
from graders.impl import Impl
from graders.plugin.run_spec import GradingRun
from graders.student import chapter_run as runner
from graders.student import check, progress
from graders.student.state import ProgressState

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def student_run(impl):
    """The run ``dtlab progress`` and ``dtlab check`` build: ``impl``, the student profile, and the
    environment's defaults for the rest."""
    return GradingRun(impl=impl, profile="student").with_defaults()


def _copy_chapter(source, target):
    target.mkdir(parents=True)
    for path in source.glob("*.py"):
        if not path.name.startswith("test_"):
            shutil.copy(path, target / path.name)


class Counted:
    """``runner.grade_together``, counting the chapters it grades (real, or a fake's canned
    gradebook per chapter)."""

    def __init__(self, fake=None):
        self.graded: list[str] = []
        self.fake = fake
        self.real = runner.grade_together

    def __call__(self, run, chapters, **options):
        self.graded += chapters
        if self.fake is not None:
            return [self.fake(run, chapter, **options) for chapter in chapters]
        return self.real(run, chapters, **options)


@pytest.fixture(scope="module")
def course(kit_root, tmp_path_factory):
    """A student's folder, ch2 solved (the solutions) and ch7 not started (the stubs); checked once
    with ``dtlab check ch2``, then ``dtlab progress ch2 ch7``."""
    root = tmp_path_factory.mktemp("student")
    _copy_chapter(kit_root / "solutions" / "ch2", root / "impl" / "ch2")
    _copy_chapter(kit_root / "exercises" / "ch7", root / "impl" / "ch7")
    impl, state = Impl.resolve(root / "impl"), root / "progress.json"
    checked = io.StringIO()
    with contextlib.redirect_stdout(checked), contextlib.redirect_stderr(io.StringIO()):
        check_rc = check.main("ch2", None, run=student_run(impl), state_path=state)
    counted, log = Counted(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "grade_together", counted)
        lines = progress.progress(student_run(impl), ["ch2", "ch7"], state_path=state, log=log)
    return {
        "root": root,
        "impl": impl,
        "state": state,
        "check_rc": check_rc,
        "checked": checked.getvalue(),
        "graded": counted.graded,
        "lines": lines,
    }


def test_check_of_a_solved_chapter_passes_and_feeds_progress(course):
    assert course["check_rc"] == 0, course["checked"]
    assert "every part passed" in course["checked"]
    assert ["ch2.ring_all_reduce", "3/3", "passed"] in [
        line.split() for line in course["checked"].splitlines()
    ]
    assert course["graded"] == [], "ch2 was checked as a whole chapter: progress must reuse it"


def test_progress_marks_a_solved_chapter_and_counts_stubs_as_not_started(course):
    table = progress.render(course["lines"])
    ch2, ch7 = (next(row for row in table.splitlines() if row.startswith(c)) for c in ("ch2", "ch7"))
    assert ch2.split() == ["ch2", "Collective", "communication", "✓", "10", "0", "0", "20/20"]
    assert ch7.split() == ["ch7", "Pipeline", "parallelism", "0", "0", "5", "0/19"]
    assert "graded now: ch7" in table and "unchanged, not graded again: ch2" in table
    assert course["graded"] == [], "the stubs, untouched, are not started by their digest: nothing ran"
    vi = progress.render(course["lines"], "vi")
    assert "chưa làm" in vi and "Giao tiếp tập thể ✓" in vi


def test_nothing_changed_grades_nothing(course, monkeypatch):
    counted = Counted(fake=lambda *a, **k: pytest.fail("graded although nothing changed"))
    monkeypatch.setattr(runner, "grade_together", counted)
    lines = progress.progress(
        student_run(course["impl"]), ["ch2", "ch7"], state_path=course["state"], log=io.StringIO()
    )
    assert counted.graded == []
    assert progress.render(lines).count("✓") == 1


def test_nothing_changed_imports_neither_torch_nor_pytest(course):
    script = (
        "import sys; from graders.cli.main import main; "
        f"rc = main(['progress', 'ch2', 'ch7', '--impl', {str(course['impl'].root)!r}, "
        f"'--state', {str(course['state'])!r}]); "
        "heavy = sorted({'torch', 'pytest', 'hypothesis'} & set(sys.modules)); "
        "print('imported:', heavy); sys.exit(rc)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "imported: []" in done.stdout
    assert "20/20" in done.stdout and "grading" not in done.stderr


def _canned(statuses):
    """A fake grading run: every exercise of the chapter with the given status (points if passed)."""

    def grade(run, chapter, **options):
        from graders import catalog

        book = Gradebook(impl=run.impl.label)
        for entry in catalog.CHAPTERS[chapter].exercises:
            for part in entry.parts:
                book.record(entry.id, part, statuses.get(entry.id, PASSED))
        return runner.ChapterRun(chapter, book.to_dict(), "", 0.1)

    return grade


def test_a_changed_file_regrades_only_its_chapter(course, monkeypatch):
    bubble = course["root"] / "impl" / "ch7" / "bubble.py"
    original = bubble.read_text()
    counted = Counted(fake=_canned({}))
    monkeypatch.setattr(runner, "grade_together", counted)
    try:
        bubble.write_text(original + "\n# started on the bubble\n")
        lines = progress.progress(
            student_run(course["impl"]), ["ch2", "ch7"], state_path=course["state"], log=io.StringIO()
        )
        assert counted.graded == ["ch7"]
        ch7 = next(line for line in lines if line.chapter == "ch7").record.exercises
        # the fake passed everything it graded: the bubble's exercise; the other files are stubs
        assert ch7["ch7.bubble_fraction"].status == PASSED
        assert {e for e, mark in ch7.items() if mark.status != PASSED} == set(ch7) - {"ch7.bubble_fraction"}
        progress.progress(
            student_run(course["impl"]), ["ch2", "ch7"], state_path=course["state"], log=io.StringIO()
        )
        assert counted.graded == ["ch7"], "stored: the same files are not graded twice"
    finally:
        bubble.write_text(original)


def test_refresh_regrades_everything(tmp_path, monkeypatch):
    state, impl = tmp_path / "progress.json", Impl.resolve("solutions")
    counted = Counted(fake=_canned({}))
    monkeypatch.setattr(runner, "grade_together", counted)
    for refresh in (False, False, True):
        progress.progress(
            student_run(impl), ["ch2", "ch7"], refresh=refresh, state_path=state, log=io.StringIO()
        )
    assert sorted(counted.graded) == ["ch2", "ch2", "ch7", "ch7"]


def test_untouched_stubs_are_not_started_without_grading(tmp_path, monkeypatch):
    counted = Counted(fake=lambda *a, **k: pytest.fail("a stub file was graded"))
    monkeypatch.setattr(runner, "grade_together", counted)
    lines = progress.progress(
        student_run(Impl.resolve("exercises")), None, state_path=tmp_path / "p.json", log=io.StringIO()
    )
    assert counted.graded == []
    assert all(mark.status == "not started" for line in lines for mark in line.record.exercises.values())
    assert sum(len(line.record.exercises) for line in lines) == 82


def test_a_stub_saved_with_windows_line_endings_is_still_a_stub(tmp_path):
    from graders.authoring import pristine

    impl = tmp_path / "impl"
    _copy_chapter(Impl.resolve("exercises").root / "ch7", impl / "ch7")
    bubble = impl / "ch7" / "bubble.py"
    bubble.write_bytes(bubble.read_bytes().replace(b"\n", b"\r\n"))
    manifest = pristine.load(Impl.resolve("exercises").root)
    found = pristine.untouched(Impl.resolve(impl), "ch7", ("bubble", "schedules"), manifest)
    assert found == {"bubble", "schedules"}
    bubble.write_text(bubble.read_text() + "x = 1\n")
    assert pristine.untouched(Impl.resolve(impl), "ch7", ("bubble",), manifest) == set()


def test_sessions_share_the_chapters_by_weight():
    weights = {"ch2": 10.0, "ch5": 40.0, "ch6": 45.0, "ch7": 10.0, "ch11": 30.0}
    sessions = progress._share(list(weights), weights, 2)
    assert sorted(c for s in sessions for c in s) == sorted(weights)
    loads = [sum(weights[c] for c in s) for s in sessions]
    assert max(loads) - min(loads) <= 10.0


@pytest.mark.parametrize(
    "junk", ["{not json", '{"version": 1, "chapters": {"ch2": {"key": 3}}}', "[]", "\xff"]
)
def test_a_corrupt_state_file_is_replaced(tmp_path, monkeypatch, junk):
    state = tmp_path / "progress.json"
    state.write_bytes(junk.encode("latin-1"))
    counted = Counted(fake=_canned({"ch7.bubble_fraction": FAILED}))
    monkeypatch.setattr(runner, "grade_together", counted)
    log = io.StringIO()
    lines = progress.progress(student_run(Impl.resolve("solutions")), ["ch7"], state_path=state, log=log)
    assert counted.graded == ["ch7"]
    assert "could not be used and was replaced" in log.getvalue()
    assert (
        json.loads(state.read_text())["chapters"]["ch7"]["exercises"]["ch7.bubble_fraction"]["status"]
        == FAILED
    )
    assert progress.render(lines).split("\n")[2].split()[-4:] == ["4", "1", "0", "17/19"]
    assert not ProgressState.load(state).replaced


def test_a_chapter_whose_grading_breaks_is_an_error_row_and_is_not_stored(tmp_path):
    kit = tmp_path / "kit"
    (kit / "exercises" / "ch7").mkdir(parents=True)
    (kit / "exercises" / "ch7" / "test_broken.py").write_text("import no_such_module_for_dtlab\n")
    state = tmp_path / "progress.json"
    lines = progress.progress(
        student_run(Impl.resolve("exercises")), ["ch7"], state_path=state, kit_root=kit, log=io.StringIO()
    )
    table = progress.render(lines)
    assert "ch7  Pipeline parallelism" in table and "grading error: pytest exited with status 2" in table
    assert "No module named 'no_such_module_for_dtlab'" in table
    assert "Traceback" not in table
    assert not state.exists()


def test_check_explains_a_failing_part_without_a_traceback(kit_root, tmp_path, capsys):
    impl = Impl.resolve(kit_root / "fixtures" / "submissions" / "ch2" / "bob")
    state = tmp_path / "progress.json"
    rc = check.main("ch2", "ring_reduce_scatter", run=student_run(impl), state_path=state)
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "✗ ch2.ring_reduce_scatter [result, ring] (0/3): wrong result · rank 1" in out
    assert "rank 1's chunk: expected shape (1,), got (2,)." in out
    assert "example: world_size=4, shape=(5,), dtype=float32, op='sum', seed=6" in out
    # bob splits with Tensor.chunk: the mutant library knows it, and its hint comes in the case's place
    said = "likely misconception: Your ring_reduce_scatter behaves like one that splits with Tensor.chunk"
    assert said in out
    assert "hint: here numel = 5" not in out
    assert "ch2.ring_shift" not in out, "only the exercise asked for is graded"
    assert "Traceback" not in out and "def test_" not in out
    assert "check again: dtlab check ch2 ring_reduce_scatter" in out
    assert not state.exists(), "one exercise is not a chapter's grade"


@pytest.mark.parametrize("target", [("ch2", "ring_allreduce"), ("ch2", "ch4.ddp"), ("ch2.nope", None)])
def test_an_unknown_exercise_lists_the_chapters_exercises(target, capsys, monkeypatch):
    monkeypatch.setattr(runner, "grade", lambda *a, **k: pytest.fail("graded an unknown exercise"))
    rc = check.main(*target, run=student_run(Impl.resolve("exercises")))
    err = capsys.readouterr().err
    assert rc == 2
    assert "ch2 has no exercise" in err and "ring_all_reduce, all_to_all" in err


def test_check_names_accepted():
    assert check.resolve("ch2", "ring_all_reduce") == ("ch2", "ch2.ring_all_reduce")
    assert check.resolve("ch2", "ch2.ring_all_reduce") == ("ch2", "ch2.ring_all_reduce")
    assert check.resolve("ch2.ring_all_reduce") == ("ch2", "ch2.ring_all_reduce")
    assert check.resolve("ch7") == ("ch7", None)
    chapters = ", ".join(CHAPTERS)
    with pytest.raises(check.UnknownTarget, match=f"choose from {chapters}"):
        check.resolve(f"ch{max(int(chapter.removeprefix('ch')) for chapter in CHAPTERS) + 1}")


def test_a_failure_keeps_its_pieces_as_data_from_the_exception_to_the_block():
    from graders.errors import StudentError, record_of
    from graders.judge.checks import fail
    from graders.words.messages import say

    raised = StudentError(
        "rank 2 raised ValueError: boom\n  File collectives.py, line 3",
        "compute the peer from the rank",
        example="world_size=3, src=1",
        rank="2",
        subject="ch2.broadcast",
    )
    found = record_of(raised)
    assert (found.kind, found.rank, found.example, found.subject) == (
        "error",
        "2",
        "world_size=3, src=1",
        "ch2.broadcast",
    )
    assert str(raised).splitlines()[0] == "ch2.broadcast: rank 2 raised ValueError: boom"
    with pytest.raises(AssertionError) as info:  # the rank a message was said with is the failure's rank
        fail(say("expected value", what=say("rank:finished", rank=1), expected=1, got=2), "c")
    assert record_of(info.value).rank == "1"
    book = Gradebook(impl="exercises")
    book.record("ch2.broadcast", "result", FAILED, found)
    text = check.render(book, ["ch2.broadcast"], lang="vi")
    assert "✗ ch2.broadcast [kết quả] (0/1): ngoại lệ · rank 2" in text
    assert "    rank 2 raised ValueError: boom\n      File collectives.py, line 3" in text
    assert "    ví dụ: world_size=3, src=1" in text and "    gợi ý: compute the peer from the rank" in text


def test_parts_failing_alike_share_one_block_and_exit_status(monkeypatch, capsys):
    book = Gradebook(impl="exercises")
    same = Failure.of(
        "wrong",
        "rank 0's result: expected 1, got 2.",
        example="world_size=2",
        hint="add, do not overwrite",
        rank=0,
    )
    book.record("ch2.ring_all_gather", "result", FAILED, same)
    book.record("ch2.ring_all_gather", "ring", FAILED, same)
    text = check.render(book, ["ch2.ring_all_gather"], lang="vi")
    assert text.count("✗") == 1 and "[kết quả, vòng] (0/2): kết quả sai · rank 0" in text
    assert "gợi ý: add, do not overwrite" in text and "ví dụ: world_size=2" in text
    assert not check.passed(book, ["ch2.ring_all_gather"])
    book.record("ch2.ring_shift", "result", PASSED)
    assert check.passed(book, ["ch2.ring_shift"]) and not check.passed(book, ["ch2.ring_shift", "ch2.reduce"])


def test_the_key_follows_what_decides_a_grade(tmp_path):
    from graders.student.fingerprint import chapter_key

    kit, impl = tmp_path / "kit", tmp_path / "impl"
    files = {
        "graders/judge/checks.py": True,
        "graders/chapters/ch7/checks.py": True,
        "exercises/ch7/test_bubble.py": True,
        "graders/grading/batch.py": False,
        "graders/student/check.py": False,
        "graders/cli/main.py": False,
    }
    for name in [*files, "exercises/ch7/README.md"]:
        (kit / name).parent.mkdir(parents=True, exist_ok=True)
        (kit / name).write_text("x = 1\n")
    (impl / "ch7").mkdir(parents=True)
    (impl / "ch7" / "bubble.py").write_text("def bubble_fraction(): ...\n")
    student = student_run(impl)
    key = chapter_key(student, "ch7", kit)
    assert chapter_key(student, "ch7", kit) == key
    for name, decides in files.items():
        (kit / name).write_text("x = 2\n")
        assert (chapter_key(student, "ch7", kit) != key) is decides, name
        key = chapter_key(student, "ch7", kit)
    (impl / "ch7" / "helpers.py").write_text("")
    assert chapter_key(student, "ch7", kit) != key, "a new file beside the graded module"
    assert chapter_key(student, "ch2", kit) != chapter_key(student, "ch7", kit)
    # the run's settings, as it says them (never the environment's): its backend, deadline, profile
    said = [
        {"backend": "gloo"},
        {"backend": "nccl"},
        {"deadline": 2.5},
        {"deadline": 3.5},
        {"profile": "grading"},
    ]
    assert len({chapter_key(replace(student, **changed), "ch7", kit) for changed in said}) == len(said)


def test_explain_adds_the_recap_and_a_hintless_failure_gets_the_first_graded_hint():
    from graders.words import hints

    book = Gradebook(impl="exercises")
    book.record(
        "ch2.ring_shift", "result", FAILED, Failure.of("wrong", "rank 1's result: expected 3, got 0.")
    )
    text = check.render(book, ["ch2.ring_shift"], explain=True)
    assert f"hint: {hints.hints('ch2.ring_shift')[0]}" in text
    assert "ch2.ring_shift · theory recap:" in text
    assert hints.recap("ch2.ring_shift").strip().splitlines()[0] in text
    assert "more hints, one level at a time: dtlab hint ch2 ring_shift" in text
    assert "· theory recap:" not in check.render(book, ["ch2.ring_shift"])


def test_a_stub_is_one_line_per_exercise():
    book = Gradebook(impl="exercises")
    book.record("ch2.broadcast", "result", "not started", Failure.of("not started", subject="ch2.broadcast"))
    book.record("ch2.broadcast", "tree", "not started", Failure.of("not started", subject="ch2.broadcast"))
    text = check.render(book, ["ch2.broadcast"])
    assert text.splitlines()[0] == (
        "○ ch2.broadcast [result, tree] (0/2): not started: "
        "still raises its TODO: implement it in the stub file"
    )
    assert "✗" not in text


def test_next_points_at_the_chapter_with_a_failure_before_one_not_started(tmp_path, monkeypatch):
    """ch1 untouched and ch2 with one failing exercise: the work in hand is ch2."""
    from graders import catalog
    from graders.gradebook import NOT_STARTED

    ch1 = {e.id: NOT_STARTED for e in catalog.CHAPTERS["ch1"].exercises}
    canned = {"ch1": _canned(ch1), "ch2": _canned({"ch2.broadcast": FAILED})}
    monkeypatch.setattr(runner, "grade_together", Counted(lambda run, c, **o: canned[c](run, c, **o)))
    lines = progress.progress(
        student_run(Impl.resolve("solutions")),
        ["ch1", "ch2"],
        state_path=tmp_path / "p.json",
        log=io.StringIO(),
    )
    assert progress.render(lines).splitlines()[-1] == "next: dtlab check ch2"
