"""One grading run, checked where it is made and passed on as the object: what a run may be, what
it becomes at a process boundary, and that no choice of it leaves through the environment."""

import math
import os
import re

import pytest

from graders.impl import KIT_ROOT, Impl, ImplLocation, ImplNotFound
from graders.plugin.run_spec import PROFILES, GradingRun, InvalidRun


@pytest.mark.parametrize(
    ("said", "message"),
    [
        ({"profile": "fast"}, "unknown profile 'fast': choose one of student, grading, ci, mutants"),
        ({"backend": "mpi"}, "unknown backend 'mpi': choose one of auto, gloo, nccl"),
        ({"lang": "fr"}, "unknown lang 'fr': choose one of en, vi"),
        ({"deadline": 0}, "a deadline of 0 s"),
        ({"deadline": -1.5}, "a deadline of -1.5 s"),
        ({"deadline": math.nan}, "a deadline of nan s"),
        ({"chapters": ("ch2", "ch42")}, "unknown chapter 'ch42'; choose from ch1, ch2"),
        ({"exercises": ("ch2.ring_allreduce",)}, "unknown exercise 'ch2.ring_allreduce'"),
        ({"chapters": ("ch2",), "exercises": ("ch4.ddp",)}, "ch4.ddp not in the run's chapters (ch2)"),
    ],
)
def test_a_run_that_cannot_be_is_refused_where_it_is_made(said, message):
    with pytest.raises(InvalidRun, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        GradingRun(**said)


def test_every_problem_is_said_at_once():
    with pytest.raises(InvalidRun) as refused:
        GradingRun(profile="fast", backend="mpi", deadline=0)
    said = str(refused.value)
    assert "unknown profile 'fast'" in said and "unknown backend 'mpi'" in said and "deadline of 0 s" in said


def test_an_implementation_folder_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(ImplNotFound, match="no such folder"):
        GradingRun(impl=tmp_path / "nowhere")
    assert issubclass(ImplNotFound, ValueError) and issubclass(InvalidRun, ValueError)


def test_what_a_run_can_be_is_accepted_and_resolved(tmp_path):
    run = GradingRun(
        impl="solutions", chapters=["ch2"], exercises=["ch2.broadcast"], report=str(tmp_path / "r.json")
    )
    assert (
        run.impl == Impl.resolve("solutions")
        and run.chapters == ("ch2",)
        and run.report == tmp_path / "r.json"
    )
    assert GradingRun(backend="nccl").backend == "nccl"  # no GPU here is no error: the graders are skipped
    assert {GradingRun(profile=p).profile for p in PROFILES} == set(PROFILES)


def test_a_run_becomes_pytests_options_and_plain_data_at_a_process_boundary(tmp_path):
    run = GradingRun(
        impl=tmp_path,
        chapters=("ch2",),
        exercises=("ch2.broadcast",),
        profile="grading",
        lang="vi",
        report=tmp_path / "r.json",
        deadline=2.5,
        backend="gloo",
        diagnose=True,
        extra=("-q",),
    )
    assert run.options() == [
        f"--impl={tmp_path}",
        "--dtlab-exercise=ch2.broadcast",
        "--hypothesis-profile=grading",
        "--lang=vi",
        f"--dtlab-report={tmp_path / 'r.json'}",
        "--dtlab-deadline=2.5",
        "--backend=gloo",
        "--dtlab-diagnose",
        "-p",
        "no:cacheprovider",
        "-q",
    ]
    assert run.pytest_args(KIT_ROOT)[0] == str(KIT_ROOT / "exercises" / "ch2")
    assert GradingRun.from_dict(run.to_dict()) == run


def test_the_environment_gives_only_the_defaults_of_what_a_run_leaves_unsaid(monkeypatch):
    for name in ("DTLAB_IMPL", "DTLAB_PROFILE", "DTLAB_LANG", "DTLAB_DEADLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DTLAB_BACKEND", "gloo")
    run = GradingRun(lang="vi").with_defaults()
    assert (run.impl.label, run.profile, run.lang, run.deadline, run.backend) == (
        "exercises",
        "student",
        "vi",
        10.0,
        "gloo",
    )
    assert GradingRun(backend="nccl").with_defaults().backend == "nccl"  # said: the environment's loses
    assert GradingRun().with_defaults(unsaid=("profile",)).profile is None


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("DTLAB_BACKEND", "mpi", "$DTLAB_BACKEND='mpi': unknown backend 'mpi'"),
        ("DTLAB_PROFILE", "fast", "$DTLAB_PROFILE='fast': unknown profile 'fast'"),
        ("DTLAB_DEADLINE", "soon", "$DTLAB_DEADLINE='soon': not a number of seconds"),
        ("DTLAB_DEADLINE", "0", "$DTLAB_DEADLINE='0': a deadline of 0.0 s"),
        ("DTLAB_IMPL", "/no/such/dtlab/folder", "$DTLAB_IMPL='/no/such/dtlab/folder': no such folder"),
    ],
)
def test_a_default_that_cannot_be_names_its_variable(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError) as refused:
        GradingRun().with_defaults()
    assert str(refused.value).startswith(message)


def test_a_student_command_passes_its_backend_in_the_run_not_the_environment(monkeypatch, capsys):
    from graders.cli import student as cli
    from graders.cli.main import build_parser
    from graders.student import chapter_run

    monkeypatch.delenv("DTLAB_BACKEND", raising=False)
    args = build_parser().parse_args(["check", "ch2", "--impl", "solutions", "--backend", "gloo"])
    run = cli._run(args, "student")
    assert run.backend == "gloo" and "DTLAB_BACKEND" not in os.environ
    argv = chapter_run.pytest_argv(run)
    assert "--backend=gloo" in argv and "--impl=solutions" in argv and "--dtlab-deadline=10.0" in argv
    refused = build_parser().parse_args(["check", "ch2", "--impl", "/no/such/dtlab/folder"])
    assert cli._run(refused) is None
    assert "dtlab check: --impl /no/such/dtlab/folder: no such folder" in capsys.readouterr().err


def test_the_kit_never_sets_a_variable_of_its_own_in_its_environment():
    from graders import config

    assert not hasattr(config, "choose_backend")
    sets = re.compile(r"os\.environ(\[\s*[\"']DTLAB_\w+[\"']\s*\]\s*=|\.setdefault\(\s*[\"']DTLAB_)|putenv")
    for path in (KIT_ROOT / "graders").rglob("*.py"):
        assert not sets.search(path.read_text()), path


class _Options:
    """What the plugin reads of pytest's config: its options."""

    def __init__(self, **given):
        self.given = given

    def getoption(self, name, default=None):
        return self.given.get(name, default)


def test_the_plugin_builds_its_run_once_from_its_options(monkeypatch):
    from graders.plugin.options import build_run

    monkeypatch.delenv("DTLAB_BACKEND", raising=False)
    monkeypatch.delenv("DTLAB_PROFILE", raising=False)
    run = build_run(
        _Options(impl="solutions", dtlab_backend="gloo", dtlab_deadline=3.0, dtlab_exercise=["ch2.reduce"])
    )
    assert (run.impl.label, run.backend, run.deadline, run.exercises, run.profile) == (
        "solutions",
        "gloo",
        3.0,
        ("ch2.reduce",),
        "student",
    )
    assert build_run(_Options(hypothesis_profile="ci")).profile == "ci"
    assert build_run(_Options(hypothesis_profile="default")).profile is None  # hypothesis's own
    with pytest.raises(pytest.UsageError, match="unknown backend 'mpi'"):
        build_run(_Options(dtlab_backend="mpi"))
    with pytest.raises(pytest.UsageError, match="a deadline of 0.0 s"):
        build_run(_Options(dtlab_deadline=0.0))


def test_the_profiles_are_said_once(monkeypatch):
    from graders.cli.main import build_parser
    from graders.plugin import profiles

    assert tuple(profiles.EXAMPLES) == PROFILES
    parser = build_parser()
    for argv in (["grade", "x", "--chapter", "ch2"], ["gradescope", "build", "--chapter", "ch2"], ["demo"]):
        assert parser.parse_args([*argv, "--profile", "ci"]).profile == "ci"
        with pytest.raises(SystemExit):
            parser.parse_args([*argv, "--profile", "fast"])


def test_a_class_is_graded_by_one_run_of_one_chapter_on_gloo():
    from dataclasses import replace

    from graders.grading.result import Settings

    settings = Settings.of("ch2", "ci", 3.0, lang="vi", diagnose=True)
    assert (settings.chapter, settings.profile, settings.deadline, settings.lang, settings.diagnose) == (
        "ch2",
        "ci",
        3.0,
        "vi",
        True,
    )
    assert settings.run.backend == "gloo"
    assert Settings.from_dict(settings.to_dict()) == settings
    for wrong in ({"backend": "nccl"}, {"chapters": ("ch2", "ch4")}, {"impl": "solutions"}):
        with pytest.raises(ValueError, match="a class's grading run"):
            Settings(replace(settings.run, **wrong))
    with pytest.raises(InvalidRun, match="unknown profile"):
        Settings.of("ch2", "fast")


def test_an_implementations_location_crosses_to_the_worker_as_plain_data():
    location = Impl.resolve("exercises").location("ch11")
    assert isinstance(location, ImplLocation) and location.builds_on
    wire = location.wire()
    assert isinstance(wire, tuple) and all(isinstance(part, str | tuple) for part in wire)
    assert ImplLocation.from_wire(wire) == location
    assert ImplLocation.from_wire(list(wire)) == location  # as a message may carry it
