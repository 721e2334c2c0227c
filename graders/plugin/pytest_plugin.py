"""The dtlab pytest plugin (registered through the ``pytest11`` entry point).

* ``--impl exercises|solutions|PATH`` chooses what is graded;
* hypothesis profiles ``student`` (default), ``grading`` and ``ci`` (``--hypothesis-profile``);
* fixtures ``world`` (the persistent worker world, one per session) and ``impl``;
* one line of feedback per failed exercise test instead of a traceback from inside the kit;
* an end-of-run table of points per exercise, and ``--dtlab-report FILE`` for a JSON gradebook.
"""

from __future__ import annotations

import os

import pytest

from graders.errors import BannedCall, GradingFailure, Halt, NotStarted, StudentError
from graders.i18n import LANGS, t
from graders.impl import Impl, ImplNotFound
from graders.plugin.marker import MARKER
from graders.plugin.results import FAILED, NOT_STARTED, PASSED, Gradebook

_GRADEBOOK = pytest.StashKey[Gradebook]()
_HARNESS = pytest.StashKey[object]()
_POOL = pytest.StashKey[object]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dtlab", "dtlab grading")
    group.addoption(
        "--impl",
        default=os.environ.get("DTLAB_IMPL", "exercises"),
        help="what to grade: exercises (the stubs), solutions, or a submission folder",
    )
    group.addoption(
        "--lang",
        default=os.environ.get("DTLAB_LANG", "en"),
        choices=LANGS,
        help="language of the summary and feedback words",
    )
    group.addoption("--dtlab-report", default=None, metavar="FILE", help="write the gradebook as JSON")
    group.addoption(
        "--dtlab-deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="deadline of one task in the worker world (default 10 s)",
    )


_EARLY_POOL: list = []  # the fork server started before configure


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """Start the worker fork server first thing: it imports torch (~3 s) while pytest starts up."""
    if not any(a in ("--co", "--collect-only", "--help", "-h", "--version") for a in args):
        import tempfile

        from graders.world.fork_server import ForkServer

        zygote = ForkServer(tempfile.mkdtemp(prefix="dtlab-worlds-"))
        zygote.start()
        _EARLY_POOL.append(zygote)
    from graders.plugin import profiles

    profiles.register()  # before hypothesis reads --hypothesis-profile


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}(exercise, part): the exercise part a test grades")
    from hypothesis import settings

    from graders.plugin import profiles

    profiles.register()  # idempotent; pytest may skip the early hook for conftest-less runs

    if not config.getoption("hypothesis_profile", None):
        settings.load_profile(os.environ.get("DTLAB_PROFILE", profiles.DEFAULT_PROFILE))
    try:
        impl = Impl.resolve(config.getoption("impl"))
    except ImplNotFound as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[_GRADEBOOK] = Gradebook(impl=impl.label, profile=settings.get_current_profile_name())
    if _EARLY_POOL:
        config.stash[_POOL] = _start_pool(config, _EARLY_POOL.pop())


def _start_pool(config: pytest.Config, zygote=None):
    from graders.world.pool import DEFAULT_DEADLINE, WorldPool

    pool = WorldPool(deadline=config.getoption("dtlab_deadline") or DEFAULT_DEADLINE, fork_server=zygote)
    pool.warm_up()
    return pool


def pytest_unconfigure(config: pytest.Config) -> None:
    pool = config.stash.get(_POOL, None)
    if pool is not None:
        pool.close()


def _gradebook(config: pytest.Config) -> Gradebook:
    return config.stash[_GRADEBOOK]


def gradebook_of(config: pytest.Config) -> Gradebook:
    """The run's gradebook (complete once the terminal summary has been written)."""
    return _gradebook(config)


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Impl:
    return Impl.resolve(request.config.getoption("impl"))


@pytest.fixture(scope="session")
def world(request: pytest.FixtureRequest):
    import torch

    from graders.plugin.harness import Harness

    # The driver's references are tiny (a few small tensors, a toy model): a second OpenMP
    # thread only spins, and on a busy 2-core machine it makes them ~20x slower.
    torch.set_num_threads(1)
    config = request.config
    pool = config.stash.get(_POOL, None) or _start_pool(config)
    config.stash[_POOL] = pool
    harness = Harness(pool)
    config.stash[_HARNESS] = harness
    return harness


def _classify(excinfo) -> tuple[str, str, str]:
    """(status, kind, message) for a failed exercise test."""
    exc = excinfo.value
    if isinstance(exc, NotStarted):
        return NOT_STARTED, "not started", str(exc)
    if isinstance(exc, Halt):
        kind = {"hang": "hang", "crash": "crash", "error": "error"}.get(exc.kind, exc.kind)
        return FAILED, kind, exc.report
    if isinstance(exc, BannedCall):
        return FAILED, "banned", str(exc)
    if isinstance(exc, StudentError):
        return FAILED, "error", str(exc)
    if isinstance(exc, GradingFailure):
        return FAILED, "wrong", str(exc)
    return FAILED, "internal", ""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    marker = item.get_closest_marker(MARKER)
    if marker is None or report.when != "call":
        if marker is not None and report.when == "setup" and report.failed:
            _gradebook(item.config).record(*marker.args, FAILED, "internal", str(report.longrepr))
        return report
    exercise_id, part = marker.args
    book = _gradebook(item.config)
    if report.passed:
        book.record(exercise_id, part, PASSED)
        return report
    if call.excinfo is None:
        return report
    status, kind, message = _classify(call.excinfo)
    book.record(
        exercise_id, part, status, kind, message, _draw_figures(item.config, call.excinfo, exercise_id, part)
    )
    report.sections = [(name, text) for name, text in report.sections if "Hypothesis" not in name]
    if kind != "internal":
        lang = item.config.getoption("lang")
        label = f"{exercise_id} [{part}]"
        if status == NOT_STARTED:
            detail = message.split("(", 1)[1].rstrip(")") if "(" in message else t("not started detail", lang)
            report.longrepr = f"{label}: {t('not started', lang)}: {detail}"
        else:
            report.longrepr = f"{label}: {t('kind:' + kind, lang)}\n{message}"
    return report


def _draw_figures(config: pytest.Config, excinfo, exercise_id: str, part: str) -> list[str]:
    """PNG pictures the failed check attached, drawn beside the JSON report (when one is written)."""
    from pathlib import Path

    from graders import figures

    report = config.getoption("dtlab_report")
    attached = figures.figures_of(excinfo.value)
    if not report or not attached:
        return []
    root = Path(report).parent
    written = figures.render(attached, root / "figures", f"{exercise_id}.{part}")
    return [str(path.relative_to(root)) for path in written]


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    book = _gradebook(config)
    harness = config.stash.get(_HARNESS, None)
    if harness is not None:
        book.integrity = {k: sorted(v) for k, v in harness.integrity.items()}
    table = book.render(config.getoption("lang"))
    if table:
        terminalreporter.section(f"dtlab · {book.impl} · profile {book.profile}")
        terminalreporter.write_line(table)
    path = config.getoption("dtlab_report")
    if path:
        book.write(path)
