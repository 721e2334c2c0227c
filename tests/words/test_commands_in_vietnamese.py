"""A teacher or a student whose language is Vietnamese reads the commands in Vietnamese (issue 47):
the batch's progress bar, the closing lines of ``dtlab release``, ``gradescope build`` and
``nbgrader init``, and the errors the commands print. Each test runs the real command or function
with ``lang="vi"`` (or ``DTLAB_LANG=vi``) and finds no English word left in what it printed."""

from __future__ import annotations

import io
import json
import re
import zipfile

import pytest

from graders.cli.main import main
from graders.errors import Failure, FailureKind
from graders.gradebook import FAILED
from graders.grading import class_pipeline as pipeline
from graders.grading.batch import Progress
from graders.grading.class_pipeline import ClassRun, ClassState, Exports, Stopped
from graders.grading.intake import Staged
from graders.grading.result import Settings
from graders.grading.verdict import interpret
from graders.student.signatures import differences

#: English words that no Vietnamese line should hold outside paths, options, code and quotes
ENGLISH = re.compile(
    r"\b(the|of|and|is|are|was|has|its|your|with|for|not|or|after|next|wrote|left|out|files?|"
    r"chapters?|submissions?|students?|resumed|eta|points|parts|choose|already|interrupted|kept|"
    r"unknown|took|longer|limit|stopped|reached|ceiling|roster|folder|empty|release)\b",
    re.IGNORECASE,
)
#: what stays as it is in Vietnamese: paths, options, commands, code, quoted names, Gradescope's menu
NOT_PROSE = re.compile(r"`[^`]*`|\S*/\S*|--[\w-]+|'[^']*'|dtlab \w+|Configure Autograder → Zip file upload")


def english_left(text: str) -> list[str]:
    return ENGLISH.findall(NOT_PROSE.sub(" ", text))


@pytest.fixture
def vietnamese(monkeypatch):
    monkeypatch.setenv("DTLAB_LANG", "vi")


def a_class(tmp_path, **options) -> ClassRun:
    said = {"submissions": tmp_path / "submissions", "out": tmp_path / "out"}
    return ClassRun("ch2", settings=Settings.of("ch2", lang="vi"), **(said | options))


def test_the_progress_bar_and_a_stopped_grading_read_in_vietnamese():
    settings = Settings.of("ch2", lang="vi")
    staged = Staged("an", {}, [])
    stopped = interpret(staged, settings, [], timed_out=True, hit=["memory"], driver_log="")
    assert stopped.error_kind == FailureKind.TIMEOUT and stopped.error.startswith(
        "việc chấm vượt giới hạn 600 s"
    )
    assert [english_left(note) for note in stopped.notes] == [[]] and "6144 MB" in stopped.notes[0]
    part = stopped.book.parts["ch2.ring_shift::result"]
    body = Failure.from_dict(part.failure).body
    assert part.status == FAILED and body["vi"] == stopped.error
    assert body["en"].startswith("grading took longer than the 600 s limit")
    stopped.seconds = 12.5
    stream = io.StringIO()
    progress = Progress(3, stream, lang="vi")
    progress(stopped)
    progress(stopped, resumed=True)
    first, second = stream.getvalue().splitlines()
    assert "12,5 s · còn khoảng " in first and "việc chấm vượt" in first
    assert " kết quả cũ · " in second
    assert english_left(first) == english_left(second) == []
    in_english = interpret(staged, Settings.of("ch2"), [], timed_out=True, hit=[], driver_log="")
    in_english.seconds = 12.5
    progress = Progress(3, io.StringIO())
    progress.done = 1
    assert progress.line(in_english, False, 1.0).endswith(
        " 12.5 s · eta 0:02 · grading took longer than the 600 s limit and was stopped"
    )


@pytest.mark.graders  # the kit's commands, writing a release and a zip
def test_dtlab_release_says_what_it_made_and_refuses_in_vietnamese(tmp_path, vietnamese, capsys):
    out = tmp_path / "release"
    assert main(["release", str(out), "--github-classroom", "--chapters", "ch2"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"bản phát hành cho sinh viên ở {out}: ")
    assert "GitHub Classroom: .github/workflows/classroom.yml chấm " in printed
    assert english_left(printed) == [], printed
    assert main(["release", str(out)]) == 2
    refused = capsys.readouterr().err
    assert "không rỗng" in refused and english_left(refused) == [], refused
    assert main(["release", str(tmp_path / "other"), "--chapters", "ch2"]) == 2
    assert main(["release", str(tmp_path / "other"), "--github-classroom", "--chapters", "ch42"]) == 2
    refused = capsys.readouterr().err
    assert "không có chương 'ch42'" in refused and english_left(refused) == [], refused


@pytest.mark.graders  # the kit's commands, writing a release and a zip
def test_gradescope_build_and_nbgrader_init_say_their_last_lines_in_vietnamese(tmp_path, vietnamese, capsys):
    assert main(["gradescope", "build", "--chapter", "ch2", "--out", str(tmp_path / "autograder.zip")]) == 0
    built = capsys.readouterr().out
    assert "tệp của bộ chấm ẩn" in built and english_left(built) == [], built
    with zipfile.ZipFile(tmp_path / "autograder.zip") as zf:
        assert json.loads(zf.read("dtlab.json"))["lang"] == "vi"  # its feedback reads in Vietnamese
    assert main(["nbgrader", "init", str(tmp_path / "course"), "--chapters", "ch2"]) == 0
    laid_out = capsys.readouterr().out
    assert laid_out.startswith("đã ghi ") and "tiếp theo: cd " in laid_out
    assert english_left(laid_out) == [], laid_out


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"duedate": "tomorrow"}, "không phải ngày giờ theo ISO 8601"),
        ({"duedate": "2026-03-01T23:59:00"}, "thiếu múi giờ"),
        ({"submissions": "/no/such/dtlab/folder"}, "không phải là thư mục chứa bài nộp"),
    ],
)
def test_a_class_that_cannot_be_read_is_refused_in_vietnamese(tmp_path, options, said):
    with pytest.raises(Stopped) as stopped:
        pipeline.Intake()(a_class(tmp_path, **options), ClassState())
    assert said in stopped.value.said and english_left(stopped.value.said) == [], stopped.value.said


def test_the_roster_and_the_skipped_read_in_vietnamese(tmp_path, capsys):
    with pytest.raises(Stopped) as stopped:
        pipeline.CheckExports(Exports(("moodle",)))(a_class(tmp_path), ClassState(roster={}))
    assert stopped.value.said.startswith("dtlab grade: --export cần --roster")
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / "bob.tar.gz").write_text("")
    run = a_class(tmp_path)
    pipeline.SaySkipped("class:not graded")(run, pipeline.Intake()(run, ClassState()))
    skipped = capsys.readouterr().err
    assert skipped == "không chấm: bob.tar.gz: không phải thư mục hay tệp .zip\n"


def test_dtlab_grade_takes_dtlab_lang_and_refuses_in_it(tmp_path, vietnamese, capsys):
    assert main(["grade", str(tmp_path), "--chapter", "ch42"]) == 2
    refused = capsys.readouterr().err
    assert refused.startswith("không có chương 'ch42'; hãy chọn một trong ch1, ") and not english_left(
        refused
    )
    assert main(["grade", str(tmp_path / "none"), "--chapter", "ch2", "--out", str(tmp_path / "out")]) == 2
    refused = capsys.readouterr().err
    assert refused.startswith("dtlab grade: ") and "thư mục chứa bài nộp" in refused


def test_the_students_commands_refuse_in_vietnamese(tmp_path, vietnamese, capsys, monkeypatch):
    assert main(["check", "ch2", "no_such_exercise"]) == 2
    assert main(["part", "ch2", "result"]) == 2
    assert main(["watch", "ch2", "no_such_exercise"]) == 2
    monkeypatch.chdir(tmp_path)
    assert main(["upgrade"]) == 2
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "pytest.ini").write_text("[pytest]\n")
    assert main(["init", str(tmp_path / "busy")]) == 2
    refused = capsys.readouterr().err.splitlines()
    assert len(refused) == 5 and [line for line in refused if english_left(line)] == [], refused
    assert "không có bài tập 'no_such_exercise'" in refused[0] and "hãy ghi tên một bài tập" in refused[1]


def test_an_upgrade_says_how_a_signature_differs_in_vietnamese():
    said = differences("def f(a):\n    pass\n", "def f(a, b=1):\n    pass\n\n\ndef g():\n    pass\n")
    assert [s.in_lang("vi") for s in said] == [
        "f: của bạn là `def f(a)`, của stub mới là `def f(a, b=1)`",
        "thiếu g; stub mới khai báo `def g()`",
    ]
    assert said[0] == "f: yours is `def f(a)`, the new stub's is `def f(a, b=1)`"


def test_what_intake_left_out_reaches_the_student_in_the_class_language(tmp_path):
    from graders.grading import intake

    (tmp_path / "an").mkdir()
    (tmp_path / "an" / "notes.txt").write_text("my notes")
    (tmp_path / "an" / "timestamp.txt").write_text("yesterday")
    staged = intake.discover(tmp_path, "ch2").staged[0]
    assert "collectives.py is missing from the submission" in staged.notes
    result = interpret(staged, Settings.of("ch2", lang="vi"), [], timed_out=True, hit=[], driver_log="")
    assert (
        "bài nộp thiếu collectives.py" in result.notes
        and "bỏ qua 2 tệp khác: kit chỉ chấm " in result.notes[0]
    )
    assert [note for note in result.notes if english_left(note)] == [], result.notes


def test_a_grading_run_that_cannot_be_is_refused_in_vietnamese(tmp_path, vietnamese, capsys):
    out = str(tmp_path / "out")
    assert main(["grade", str(tmp_path), "--chapter", "ch2", "--out", out, "--deadline", "0"]) == 2
    assert main(["check", "ch2", "--impl", str(tmp_path / "none")]) == 2
    refused = capsys.readouterr().err.splitlines()
    assert (
        refused[0]
        == "dtlab grade: thời hạn 0,0 s không hợp lệ: thời hạn của một task phải là số giây lớn hơn 0"
    )
    assert refused[1].endswith(": không có thư mục này") and not english_left(refused[1])


def test_a_gradescope_zip_built_in_vietnamese_answers_in_vietnamese(tmp_path):
    from graders.grading.lms import gradescope

    source = tmp_path / "source"
    source.mkdir()
    (source / "dtlab.json").write_text(json.dumps({"chapter": "ch2", "profile": "ci", "lang": "vi"}))
    output = gradescope.run(tmp_path, source)["output"]
    assert output.startswith("autograder không chấm được bài nộp này (FileNotFoundError: tệp zip của ")
    assert "không có bộ chấm cho ch2" in output and english_left(output) == [], output
    (source / "dtlab.json").write_text(json.dumps({"chapter": "ch2", "profile": "ci"}))  # an older zip
    assert gradescope.run(tmp_path, source)["output"].startswith(
        "the autograder could not grade this submission"
    )


def test_a_notebooks_summary_reads_in_dtlab_lang(vietnamese, capsys):
    from graders.grading.lms.notebook import ChapterGrader

    grader = ChapterGrader("ch2")
    assert grader.lang == "vi"
    grader.result = interpret(Staged("an", {}, []), Settings.of("ch2", lang="vi"), [], True, ["pids"], "")
    grader.summary()
    printed = capsys.readouterr().out
    assert "việc chấm dừng sớm: việc chấm vượt giới hạn 600 s" in printed
    assert "lưu ý: bài nộp chạm giới hạn 256 tiến trình trong lúc được chấm" in printed


def test_a_dask_batch_that_cannot_start_says_why_in_vietnamese():
    from graders.grading import batch

    with pytest.raises(SystemExit) as refused:
        batch._grade_with_dask([], Settings.of("ch2", lang="vi"), None, print)
    assert str(refused.value).startswith("--executor dask cần ")
