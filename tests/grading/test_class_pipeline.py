"""The class pipeline, a step at a time: each step does its one job on a state made by hand, with
no worker world and no sandbox (the graded runs of ``dtlab grade`` are test_batch.py's); and the
commands build their lists of steps from their options, grading nothing here."""

import csv
import shutil
from pathlib import Path

import pytest

from graders.cli.main import main
from graders.grading import class_pipeline as pipeline
from graders.grading.batch import BatchOutcome
from graders.grading.class_pipeline import ClassRun, ClassState, Exports, Stopped
from graders.grading.result import Settings

from .test_outputs import result


def a_class(tmp_path, **options) -> ClassRun:
    said = {"submissions": tmp_path / "submissions", "out": tmp_path / "out", "settings": Settings.of("ch2")}
    return ClassRun("ch2", **(said | options))


def handed_in(tmp_path, students=("an", "binh")) -> Path:
    folder = tmp_path / "submissions"
    for student in students:
        (folder / student).mkdir(parents=True)
        (folder / student / "collectives.py").write_text(f"# {student}'s ring\nx = {len(student)}\n")
    (folder / "notes.txt").write_text("not a submission")
    return folder


def graded(*results) -> ClassState:
    outcome = BatchOutcome(
        list(results), graded=[r.student_id for r in results], seconds=1.0, isolation="none"
    )
    return ClassState(outcome=outcome)


ANN = result("an", passed=[("ch2.ring_shift", "result")], failed=[("ch2.broadcast", "tree", "wrong", "flat")])
BINH = result("binh", error="grading took longer than the 600 s limit and was stopped")


def test_intake_stages_the_submissions_and_reads_the_due_date_and_roster(tmp_path):
    handed_in(tmp_path)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name,email\nan,An,Nguyen,an@uni.edu\n")
    run = a_class(tmp_path, duedate="2026-03-01T23:59:00+07:00", roster=roster)
    state = pipeline.Intake()(run, ClassState())
    assert [s.student_id for s in state.staged] == ["an", "binh"]
    assert state.staged[0].files == {"collectives.py": b"# an's ring\nx = 2\n"}
    assert state.duedate == "2026-03-01T23:59:00+07:00" and set(state.roster) == {"an"}
    assert state.outcome is None, "intake grades nothing"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"duedate": "tomorrow"}, "dtlab grade: "),
        ({"roster": Path("/no/such/dtlab/roster.csv")}, "dtlab grade: "),
        ({"command": "dtlab similarity", "submissions": Path("/no/such/dtlab/folder")}, "dtlab similarity: "),
    ],
)
def test_intake_refuses_what_cannot_be_read_with_the_commands_name(tmp_path, options, said):
    handed_in(tmp_path)
    run = a_class(tmp_path, **options)
    with pytest.raises(Stopped) as stopped:
        pipeline.Intake()(run, ClassState())
    assert stopped.value.said.startswith(said) and stopped.value.status == 2


def test_skipped_submissions_are_named_on_stderr(tmp_path, capsys):
    state = ClassState(skipped=("bob.tar.gz: not a folder or a .zip",))
    assert pipeline.SaySkipped("class:not graded")(a_class(tmp_path), state) is state
    assert capsys.readouterr().err == "not graded: bob.tar.gz: not a folder or a .zip\n"


def test_an_export_the_roster_cannot_fill_stops_before_grading(tmp_path):
    from graders.grading.reports import outputs

    with pytest.raises(Stopped, match="^dtlab grade: --export needs --roster"):
        pipeline.CheckExports(Exports(("moodle",)))(a_class(tmp_path), ClassState(roster={}))
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name,email,canvas_id\nan,An,Nguyen,an@uni.edu,101\n")
    state = ClassState(roster=outputs.read_roster(roster))
    canvas = Exports(("canvas",))
    assert pipeline.CheckExports(canvas)(a_class(tmp_path), state) is state
    with pytest.raises(Stopped, match="--canvas-assignment-id"):
        pipeline.CheckExports(canvas)(a_class(tmp_path, assignment="Lab (2)"), state)


def test_grading_stopped_by_ctrl_c_keeps_what_is_done_and_says_so(tmp_path, monkeypatch):
    from graders.grading import batch, sandbox

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(batch, "grade_batch", interrupted)
    run = a_class(tmp_path)
    with pytest.raises(Stopped) as stopped:
        pipeline.Grade()(run, ClassState())
    assert stopped.value.status == 130
    assert stopped.value.said == (
        f"\ninterrupted: finished students are kept in {run.out / '.dtlab' / 'results'}; "
        "run the same command again to grade the rest"
    )

    def unsafe(*args, **kwargs):
        raise sandbox.UnsafeIsolation("no sandbox here")

    monkeypatch.setattr(batch, "grade_batch", unsafe)
    with pytest.raises(Stopped, match="^no sandbox here$"):
        pipeline.Grade()(run, ClassState())


def test_no_battery_no_misconceptions(tmp_path, capsys):
    state = pipeline.NameMisconceptions()(a_class(tmp_path), graded(ANN, BINH))
    assert state.misconceptions is None and capsys.readouterr().out == ""


def test_the_outputs_are_written_from_results_alone(tmp_path, capsys):
    run = a_class(tmp_path)
    state = graded(ANN, BINH)
    assert pipeline.WriteOutputs()(run, state) is state
    printed = capsys.readouterr().out
    with open(run.out / "grades_wide.csv", newline="") as fh:
        assert {row["student_id"]: row["score"] for row in csv.DictReader(fh)} == {"an": "1", "binh": "0"}
    assert (run.out / "feedback" / "an.md").is_file() and (
        run.out / "gradescope" / "an" / "results.json"
    ).is_file()
    assert "2 student(s): 2 graded now, 0 resumed" in printed
    assert f"→ {run.out / 'grades.csv'} (nbgrader columns)" in printed


def test_the_teacher_reads_the_class_in_the_runs_language(tmp_path, capsys):
    """With ``--lang vi`` the console speaks Vietnamese too: the table, the summary, the files."""
    run = a_class(tmp_path, settings=Settings.of("ch2", lang="vi"))
    pipeline.WriteOutputs()(run, graded(ANN, BINH))
    printed = capsys.readouterr().out
    assert "2 sinh viên: 2 bài chấm lần này, 0 bài lấy lại kết quả cũ; 1,0 s" in printed
    assert "bài tập" in printed and "trung bình" in printed and "(các cột của nbgrader)" in printed
    assert "graded now" not in printed and "nbgrader columns" not in printed


def test_the_lms_gradebooks_are_written_from_the_roster(tmp_path, capsys):
    run = a_class(tmp_path)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name,email\nan,An,Nguyen,an@uni.edu\nbinh,Binh,Tran,\n")
    from graders.grading.reports import outputs

    state = ClassState(outcome=graded(ANN, BINH).outcome, roster=outputs.read_roster(roster))
    pipeline.ExportLMS(Exports(("moodle",)))(run, state)
    printed = capsys.readouterr()
    assert (run.out / "grades_moodle.csv").is_file()
    assert "grades_moodle.csv: left out" in printed.err and "binh" in printed.err
    assert "(Moodle: 1 student(s), 1 left out (see above))" in printed.out


def test_the_class_report_is_written_and_named(tmp_path, capsys):
    run = a_class(tmp_path)
    state = pipeline.ClassReport()(run, graded(ANN, BINH))
    assert state.report is not None and state.report.is_file() and state.report.parent == run.out
    assert f"→ {state.report}: the class at a glance" in capsys.readouterr().out


def test_similar_pairs_are_flagged_without_grading(tmp_path, capsys):
    handed_in(tmp_path, ("an", "binh"))
    shutil.copy(tmp_path / "submissions" / "an" / "collectives.py", tmp_path / "submissions" / "binh")
    run = ClassRun("ch2", tmp_path / "submissions", tmp_path / "out", command="dtlab similarity")
    steps = [pipeline.Intake(), pipeline.FlagSimilar(0.5)]
    state = pipeline.run_class(run, steps)
    assert (run.out / "similarity.csv").is_file() and state.outcome is None
    assert "similarity: " in capsys.readouterr().out


def test_a_missing_similarity_library_stops_first(tmp_path, monkeypatch):
    from graders.grading.reports import similarity

    monkeypatch.setattr(similarity, "missing_library", lambda: "copydetect is not installed")
    with pytest.raises(Stopped, match="^dtlab: copydetect is not installed$"):
        pipeline.run_class(a_class(tmp_path), [pipeline.RequireSimilarity(), pipeline.Intake()])


def test_a_stop_ends_the_run_before_the_next_step(tmp_path):
    ran = []

    def step(name, stop=False):
        def run(run, state):
            ran.append(name)
            if stop:
                raise Stopped("no", 2)
            return state

        return run

    with pytest.raises(Stopped):
        pipeline.run_class(a_class(tmp_path), [step("a"), step("b", stop=True), step("c")])
    assert ran == ["a", "b"]


def kinds(steps):
    return [type(step).__name__ for step in steps]


def test_the_options_choose_the_steps():
    assert kinds(pipeline.grading_steps()) == [
        "Intake",
        "SaySkipped",
        "Grade",
        "NameMisconceptions",
        "WriteOutputs",
        "ClassReport",
    ]
    both = pipeline.grading_steps(exports=Exports(("moodle", "canvas")), similarity=0.8)
    assert kinds(both) == [
        "RequireSimilarity",
        "Intake",
        "CheckExports",
        "SaySkipped",
        "Grade",
        "NameMisconceptions",
        "WriteOutputs",
        "ExportLMS",
        "FlagSimilar",
        "ClassReport",
    ]
    assert both[-2].threshold == 0.8


@pytest.fixture
def built(monkeypatch):
    """What a command hands the pipeline, instead of running it."""
    seen = {}

    def run_class(run, steps):
        seen.update(run=run, steps=steps)
        return ClassState()

    monkeypatch.setattr(pipeline, "run_class", run_class)
    return seen


def test_each_command_builds_its_own_list(tmp_path, built, kit_root):
    assert main(["demo", "--out", str(tmp_path / "demo"), "--similarity", "--profile", "ci"]) == 0
    run = built["run"]
    assert (run.chapter, run.submissions, run.settings.profile) == (
        "ch2",
        kit_root / "fixtures" / "submissions" / "ch2",
        "ci",
    )
    assert kinds(built["steps"])[0] == "RequireSimilarity" and kinds(built["steps"])[-1] == "ClassReport"

    course = tmp_path / "course"
    assert main(["nbgrader", "grade", str(course), "ch2", "--deadline", "4"]) == 0
    run, steps = built["run"], built["steps"]
    assert (run.submissions, run.out, run.assignment, run.settings.deadline) == (
        course,
        course / "dtlab" / "ch2",
        "ch2",
        4.0,
    )
    assert kinds(steps)[-2:] == ["ClassReport", "RecordInGradebook"]
    assert steps[-1].db_url == f"sqlite:///{course.resolve() / 'gradebook.db'}"


def test_a_run_that_cannot_be_is_refused_before_any_step(tmp_path, built, capsys):
    argv = ["grade", str(tmp_path), "--chapter", "ch2", "--out", str(tmp_path / "out"), "--deadline", "0"]
    assert main(argv) == 2
    assert "dtlab grade: a deadline of 0.0 s" in capsys.readouterr().err and built == {}
    assert main(["grade", str(tmp_path), "--chapter", "ch42"]) == 2
    assert capsys.readouterr().err.startswith("unknown chapter 'ch42'")
