"""The dtlab pytest plugin (registered through the ``pytest11`` entry point).

* ``--impl exercises|solutions|PATH`` chooses what is graded;
* hypothesis profiles ``student`` (default), ``grading`` and ``ci`` (``--hypothesis-profile``);
* fixtures ``harness`` (runs graded code in the persistent worker world) and ``impl``;
* one line of feedback per failed exercise test instead of a traceback from inside the kit;
* an end-of-run table of points per exercise, and ``--dtlab-report FILE`` for a JSON gradebook;
* ``--png DIR``: the pictures of every failed part (trace, memory bars, timeline) as PNG files;
* ``--dtlab-exercise ch2.ring_all_reduce`` grades only that exercise's tests (``dtlab check``);
* :func:`lend_worlds`: a run in a longer-lived process (``dtlab watch``) grades in that process's
  world pool instead of starting (and closing) its own.

The plugin is lazy: a pytest run that collects no grader (another project's tests, a chapter
that does not exist) starts nothing and loads no profile. The first grader file collected
starts the worker fork server, which imports torch while pytest goes on collecting.
"""

from __future__ import annotations

import functools

import pytest

from graders import config as dtlab_config
from graders.errors import Failure, FailureKind, NotStarted, record_of, render
from graders.gradebook import FAILED, NOT_RUN, NOT_STARTED, PASSED, Gradebook
from graders.impl import Impl
from graders.plugin import pictures
from graders.plugin.marker import MARKER
from graders.plugin.options import build_run, names_misconceptions, no_world_here
from graders.plugin.run_spec import GradingRun
from graders.words.vocabulary import part_name, t

#: hidden graders are files named ``test_hidden_*.py`` (``hidden/chN/``, and ``dtlab grade``'s suite)
HIDDEN_PREFIX = "test_hidden"
_RUN = pytest.StashKey[GradingRun]()
_GRADEBOOK = pytest.StashKey[Gradebook]()
_HARNESS = pytest.StashKey[object]()
_POOL = pytest.StashKey[object]()
_FORK_SERVER = pytest.StashKey[object]()
_LENT = pytest.StashKey[bool]()
_NARROWED = pytest.StashKey[bool]()  # graded tests were left out of this run


def pytest_addoption(parser: pytest.Parser) -> None:
    from graders.plugin.options import add_options

    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args) -> None:
    from graders.plugin import profiles

    profiles.register(_profile_in(args))  # before hypothesis reads --hypothesis-profile


def _profile_in(args: list[str]) -> str | None:
    for i, arg in enumerate(args):
        if arg.startswith("--hypothesis-profile="):
            return arg.partition("=")[2]
        if arg == "--hypothesis-profile" and i + 1 < len(args):
            return args[i + 1]
    return None


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from graders.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}(exercise, part): the exercise part a test grades")
    from graders.plugin import profiles

    profiles.register(config.getoption("hypothesis_profile", None))  # the early hook may be skipped
    run = config.stash[_RUN] = build_run(config)  # once: every hook below reads it
    config.stash[_GRADEBOOK] = Gradebook(impl=run.impl.label)


def _keep_hypothesis_under(root) -> None:
    """Hypothesis's folder in one place, ``ROOT/.cache/hypothesis`` (beside pytest's cache, see
    pyproject.toml), instead of ``.hypothesis`` in whatever folder pytest was started from. The
    profiles keep no example database; this is for whatever else hypothesis may store. ``ROOT`` is
    pytest's rootdir: the kit for a student's run, the work folder for a sandboxed one."""
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(root / ".cache" / "hypothesis")


def run_of(config: pytest.Config) -> GradingRun:
    """The grading run of this pytest (:func:`graders.plugin.options.build_run`): what it grades,
    with which profile, deadline and backend, in which language, and where its gradebook goes."""
    return config.stash[_RUN]


def pytest_collect_file(file_path, parent) -> None:
    """A grader file is about to be imported: load the default profile (``fewer_examples`` reads
    it at import) and start the fork server, so torch imports there while pytest collects."""
    if file_path.suffix == ".py" and file_path.name.startswith("test_") and _mentions_graders(file_path):
        _activate(parent.config)


def _mentions_graders(path) -> bool:
    try:
        return "graders" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def lend_worlds(config: pytest.Config, pool) -> None:
    """Grade this run in ``pool``, a :class:`~graders.world.pool.WorldPool` its owner keeps alive
    between runs (call it from a plugin's ``pytest_configure``): the run starts no fork server
    and leaves the pool open when it ends."""
    config.stash[_POOL] = pool
    config.stash[_LENT] = True


def _activate(config: pytest.Config) -> None:
    if _FORK_SERVER in config.stash:
        return
    from hypothesis import settings

    from graders.plugin import profiles

    if not config.getoption("hypothesis_profile", None):
        settings.load_profile(run_of(config).profile)
    profiles.ignore_local_constants()
    _keep_hypothesis_under(config.rootpath)  # another project's run keeps its own .hypothesis
    if any(a in ("--co", "--collect-only") for a in config.invocation_params.args):
        config.stash[_FORK_SERVER] = None
        return
    if config.stash.get(_LENT, False):
        config.stash[_FORK_SERVER] = config.stash[_POOL].fork_server
        return
    import tempfile

    from graders.world.fork_server import ForkServer

    server = ForkServer(tempfile.mkdtemp(prefix="dtlab-worlds-"))
    if not dtlab_config.torchrun_world():  # there, only a launched world (chapter 1) needs it
        server.start()
    config.stash[_FORK_SERVER] = server


def _pool(config: pytest.Config):
    pool = config.stash.get(_POOL, None)
    if pool is None:
        from graders.world.pool import WorldPool

        _activate(config)
        run = run_of(config)
        pool = WorldPool(
            deadline=run.deadline,
            fork_server=config.stash[_FORK_SERVER],
            backend=run.backend,
            cluster=_cluster(),
        )
        config.stash[_POOL] = pool
    return pool


def _cluster():
    """The ranks of the torchrun-launched job this run grades in (``python -m graders.run``), or
    None: worlds forked here."""
    spec = dtlab_config.torchrun_world()
    if not spec:
        return None
    from graders.world.job.cluster import Cluster

    return Cluster.connect(spec)


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_LENT, False):
        return  # its owner closes it
    pool = config.stash.get(_POOL, None)
    if pool is not None:
        pool.close()  # its fork server and folder too
        return
    server = config.stash.get(_FORK_SERVER, None)
    if server is not None:  # started for a grader that never asked for a world
        import shutil

        server.close()
        shutil.rmtree(server.base_dir, ignore_errors=True)


@pytest.hookimpl(trylast=True)
def pytest_deselected(items: list[pytest.Item]) -> None:
    """Graded tests left out of this run (``--lf``, ``-k``, ``--dtlab-exercise``): the table then
    says that it covers only what ran."""
    if any(item.get_closest_marker(MARKER) is not None for item in items):
        items[0].config.stash[_NARROWED] = True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from graders.plugin import profiles

    only = run_of(config).exercises
    if only:  # deselected, as by -k: their parts are not graded at all
        marks = [item.get_closest_marker(MARKER) for item in items]
        chosen = [m is not None and m.args[0] in only for m in marks]
        config.hook.pytest_deselected(items=[item for item, keep in zip(items, chosen) if not keep])
        items[:] = [item for item, keep in zip(items, chosen) if keep]
    no_world = no_world_here(run_of(config))
    for item in items:
        marker = item.get_closest_marker(MARKER)
        if marker is not None:
            item.repr_failure = functools.partial(_graded_repr_failure, item)
        if marker is not None and no_world:
            item.add_marker(pytest.mark.skip(reason=no_world))
        if marker is not None and hasattr(item, "obj"):
            exercise_id, part = marker.args
            profiles.pin_seed(item.obj, f"{exercise_id}:{part}:{getattr(item, 'originalname', item.name)}")


def _narrowed(config: pytest.Config) -> bool:
    """Graded tests were deselected, or ``--lf`` reran only earlier failures (it may skip whole
    files, which deselects nothing)."""
    if config.stash.get(_NARROWED, False):
        return True
    cache = getattr(config, "cache", None)
    return bool(config.getoption("lf", False) and cache is not None and cache.get("cache/lastfailed", {}))


def gradebook_of(config: pytest.Config) -> Gradebook:
    """The run's gradebook (complete once the terminal summary has been written)."""
    return config.stash[_GRADEBOOK]


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Impl:
    return run_of(request.config).impl


@pytest.fixture(scope="session")
def harness(request: pytest.FixtureRequest):
    """The :class:`~graders.plugin.harness.Harness` that runs graded code in the worker world."""
    import torch

    from graders.plugin.harness import Harness

    # The driver's references are tiny (a few small tensors, a toy model): a second OpenMP
    # thread only spins, and on a busy 2-core machine it makes them ~20x slower.
    torch.set_num_threads(1)
    config = request.config
    found = config.stash.get(_HARNESS, None)
    if found is None:
        found = Harness(_pool(config))
        if run_of(config).diagnose or names_misconceptions(config, run_of(config)):
            found.failures = {}  # the battery reuses what grading saw fail
        config.stash[_HARNESS] = found
    return found


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A test all of whose cases needed more hardware than there is (every world drawn larger
    than the GPUs or the torchrun job) is skipped with the reason, not passed or failed."""
    harness = pyfuncitem.config.stash.get(_HARNESS, None)
    if harness is None:
        return (yield)
    harness.begin_test()
    try:
        outcome = yield
    except Exception:  # hypothesis' Unsatisfiable, when every example drawn was set aside
        if not harness.shortfall():
            raise
    else:
        if not harness.shortfall():
            return outcome
    pytest.skip(harness.shortfall())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """The wings that join the run (:mod:`graders.plugin.hookspecs`) see its tests, before a
    sandboxed run removes them."""
    session.config.hook.pytest_dtlab_collected(session=session, run=run_of(session.config))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    marker = item.get_closest_marker(MARKER)
    if marker is None or report.when != "call":
        if marker is not None and report.when == "setup" and report.failed:
            failure = Failure.of(FailureKind.INTERNAL, str(report.longrepr))
            gradebook_of(item.config).record(*marker.args, FAILED, failure)
        if marker is not None and report.when == "setup" and report.skipped:
            gradebook_of(item.config).record(*marker.args, NOT_RUN)  # not a failure: it never ran
        return report
    exercise_id, part = marker.args
    book = gradebook_of(item.config)
    if item.path.name.startswith(HIDDEN_PREFIX):
        book.hidden_run.add(f"{exercise_id}::{part}")
    if report.passed:
        book.record(exercise_id, part, PASSED)
        return report
    if report.skipped:  # pytest.skip() inside the test: the part did not run, it did not fail
        book.record(exercise_id, part, NOT_RUN)
        return report
    if call.excinfo is None:
        return report
    failure = record_of(call.excinfo.value)
    status = NOT_STARTED if failure.kind == FailureKind.NOT_STARTED else FAILED
    figures = pictures.draw_beside_report(run_of(item.config).report, call.excinfo, exercise_id, part)
    pictures.write_pngs(item, call.excinfo)
    book.record(exercise_id, part, status, failure, figures)
    report.sections = [(name, text) for name, text in report.sections if "Hypothesis" not in name]
    return report  # its text: _graded_repr_failure's


def _graded_repr_failure(item: pytest.Item, excinfo):
    """A graded test's failure as the student reads it, in their language: one line, or the
    check's own text, where pytest would render a traceback from inside the kit (it parses every
    file the traceback passes through, about 80 ms a failure: ten seconds for a chapter of stubs).
    An internal error of the kit keeps pytest's traceback. (``item.repr_failure``, set on every
    graded test as it is collected.)"""
    failure = record_of(excinfo.value)
    if failure.kind == FailureKind.INTERNAL:
        return type(item).repr_failure(item, excinfo)
    exercise_id, part = item.get_closest_marker(MARKER).args
    lang = run_of(item.config).lang
    label = f"{exercise_id} [{part_name(part, lang)}]"
    if failure.kind == FailureKind.NOT_STARTED:
        detail = failure.text("body", lang) or t("not started detail", lang)
        return f"{label}: {t('not started', lang)}: {detail}"
    return f"{label}: {t('kind:' + failure.kind, lang)}\n{render(failure, lang)}"


@pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_of_not_started(item: pytest.Item, call: pytest.CallInfo):
    """A part that is not started has nothing to reproduce: drop hypothesis's "reproduce with
    @seed(...)" block (added around the hook above) from its report. Failures keep it."""
    report = yield
    if report.when == "call" and call.excinfo is not None and isinstance(call.excinfo.value, NotStarted):
        report.sections = [(name, text) for name, text in report.sections if name != "Hypothesis"]
    return report


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    from hypothesis import settings

    run = run_of(config)
    book = gradebook_of(config)
    book.profile = settings.get_current_profile_name()
    harness = config.stash.get(_HARNESS, None)
    if harness is not None:
        book.keep_integrity(harness.integrity)
        if run.diagnose or names_misconceptions(config, run):
            config.hook.pytest_dtlab_graded(book=book, harness=harness, run=run, config=config)
    table = book.render(run.lang)
    if table:
        terminalreporter.section(f"dtlab · {book.impl} · profile {book.profile}")
        terminalreporter.write_line(table)
    for line in book.said_misconceptions(run.lang):
        terminalreporter.write_line("\n" + line)
    if table and _narrowed(config):
        terminalreporter.write_line(t("rerun only", run.lang))
    if getattr(harness, "set_aside_in_run", 0):
        terminalreporter.write_line(t("set aside", run.lang, count=harness.set_aside_in_run))
    pictures.png_summary(terminalreporter, config, run.lang)
    if run.report:
        book.write(run.report)
