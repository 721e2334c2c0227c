"""The dtlab command-line options of pytest, the grading run they say, and what its backend allows here."""

from __future__ import annotations

import pytest

from graders.plugin.run_spec import PROFILES, GradingRun
from graders.plugin.run_spec import add_options as add_run_options
from graders.world.backend import NeedsHardware, place


def add_options(parser: pytest.Parser) -> None:
    # pytest's own declaration (same default), so that a run with -p no:cacheprovider, as batch
    # grading's, does not warn about the kit's cache_dir setting.
    parser.addini("cache_dir", default=".pytest_cache", help="Cache directory path")
    group = parser.getgroup("dtlab", "dtlab grading")
    add_run_options(group, "impl", "lang", pytest=True)
    group.addoption("--dtlab-report", default=None, metavar="FILE", help="write the gradebook as JSON")
    group.addoption(
        "--png",
        dest="dtlab_png",
        default=None,
        metavar="DIR",
        help="write the pictures of failed tests (communication trace, memory bars, pipeline "
        "timeline) as PNG files into DIR (needs matplotlib: pip install -e '.[reports]')",
    )
    group.addoption(
        "--dtlab-exercise",
        action="append",
        default=None,
        metavar="EXERCISE",
        help="grade only this exercise's tests (ch2.ring_all_reduce; may be repeated)",
    )
    group.addoption(
        "--dtlab-diagnose",
        action="store_true",
        help="after grading, run the diagnostic battery of every exercise that failed and keep "
        "what the code did in the gradebook (dtlab grade names misconceptions from it)",
    )
    group.addoption(
        "--dtlab-misconceptions",
        choices=("auto", "on", "off"),
        default="auto",
        help="after grading, name the known misconception each failing exercise's code behaves "
        "like, from the chapter's shipped batteries (auto: on, except with --dtlab-diagnose, whose "
        "teacher names them, and in the ci profile)",
    )
    add_run_options(group, "backend", pytest=True)
    group.addoption(
        "--dtlab-deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="deadline of one task in the worker world (default: $DTLAB_DEADLINE, else 10 s)",
    )


def build_run(config: pytest.Config) -> GradingRun:
    """The run this pytest grades: its options, and for what they leave unsaid the environment's
    defaults; made once (the plugin's ``pytest_configure``), refused with a usage error when it
    cannot be. A ``--hypothesis-profile`` the kit does not define stays hypothesis's own: the
    run's profile is then None."""
    asked = config.getoption("hypothesis_profile", None)
    try:
        run = GradingRun(
            impl=config.getoption("impl"),
            exercises=tuple(config.getoption("dtlab_exercise") or ()),
            profile=asked if asked in PROFILES else None,
            lang=config.getoption("lang"),
            report=config.getoption("dtlab_report"),
            deadline=config.getoption("dtlab_deadline"),
            backend=config.getoption("dtlab_backend"),
            diagnose=config.getoption("dtlab_diagnose"),
        )
        return run.with_defaults(unsaid=("profile",) if asked else ())
    except ValueError as exc:  # InvalidRun, ImplNotFound
        raise pytest.UsageError(str(exc)) from None


def no_world_here(run: GradingRun) -> str:
    """Why no grader can run on this machine with the run's backend (``--backend nccl`` and no
    GPU at all), or "" (a world needing more GPUs than present is skipped when its case is drawn)."""
    if run.backend != "nccl":
        return ""
    from graders.world.backend import gpu_count

    try:
        place("nccl", 1, gpu_count())
    except NeedsHardware as exc:
        return str(exc)
    return ""


def names_misconceptions(config: pytest.Config, run: GradingRun) -> bool:
    """Whether this run names the misconceptions of its failing exercises (the student's loop)."""
    chosen = config.getoption("dtlab_misconceptions")
    if chosen != "auto":
        return chosen == "on"
    return not run.diagnose and run.profile != "ci"
