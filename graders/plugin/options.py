"""The dtlab command-line options of pytest, and what the chosen backend allows on this machine."""

from __future__ import annotations

import pytest

from graders import config as dtlab_config
from graders.plugin.run_spec import add_options as add_run_options
from graders.world.backend import BACKENDS, NeedsHardware, place


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


def chosen_backend(config: pytest.Config) -> str:
    return config.getoption("dtlab_backend") or dtlab_config.backend()


def check_backend(config: pytest.Config) -> None:
    backend = chosen_backend(config)
    if backend not in BACKENDS:
        raise pytest.UsageError(f"DTLAB_BACKEND={backend!r}: choose one of {', '.join(BACKENDS)}")


def no_world_here(config: pytest.Config) -> str:
    """Why no grader can run on this machine with the chosen backend (``--backend nccl`` and no
    GPU at all), or "" (a world needing more GPUs than present is skipped when its case is drawn)."""
    if chosen_backend(config) != "nccl":
        return ""
    from graders.world.backend import gpu_count

    try:
        place("nccl", 1, gpu_count())
    except NeedsHardware as exc:
        return str(exc)
    return ""


def names_misconceptions(config: pytest.Config) -> bool:
    """Whether this run names the misconceptions of its failing exercises (the student's loop)."""
    chosen = config.getoption("dtlab_misconceptions")
    if chosen != "auto":
        return chosen == "on"
    profile = config.getoption("hypothesis_profile", None) or ""
    return not config.getoption("dtlab_diagnose") and profile != "ci"
