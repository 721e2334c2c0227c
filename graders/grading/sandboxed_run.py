"""Grade one staged submission in a sandbox, and say clearly how it ended.

The submission's files are written to a fresh work folder next to copies of the chapter's
graders (the public ``exercises/chN/test_*.py`` and, when the kit has them, the hidden
``hidden/chN/test_*.py``). A driver forked from the warm server grades them there under the
limits of :mod:`graders.grading.sandbox` and reports on a pipe. Whatever happens (a hang past
the wall-clock limit, the memory or process ceiling, the driver killed) the result names it;
a submission never takes down the batch.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from graders import config
from graders.errors import FailureKind
from graders.gradebook import Gradebook
from graders.grading import sandbox
from graders.grading.intake import Staged
from graders.grading.result import Settings, StudentResult, grader_files, missing_graders
from graders.grading.verdict import fill_unreported, interpret
from graders.proc import tail_file
from graders.words.messages import say
from graders.words.text import in_lang

REPORT_LIMIT = 32 * 1024 * 1024


def prepare(staged: Staged, settings: Settings, base: Path) -> Path:
    """A fresh work folder: ``impl/<chapter>/`` (the submission), ``suite/`` (the graders) and ``tmp/``."""
    workdir = Path(tempfile.mkdtemp(prefix=f"{staged.student_id[:40]}-", dir=base))
    impl = workdir / "impl" / settings.chapter
    impl.mkdir(parents=True)
    for name, content in staged.files.items():
        (impl / name).write_bytes(content)
    graders_dir = workdir / "suite"
    graders_dir.mkdir()
    for path in grader_files(settings.chapter, Path(settings.kit_root)):
        target = graders_dir / path.name
        if target.exists():  # a hidden file named like a public one
            target = graders_dir / f"test_hidden_{path.name.removeprefix('test_')}"
        shutil.copyfile(path, target)
    (graders_dir / "pytest.ini").write_text("[pytest]\n")
    (workdir / "tmp").mkdir()
    return workdir


def pytest_argv(workdir: Path, settings: Settings) -> list[str]:
    sandboxed = (
        *(f"--rootdir={workdir}", "-c", str(workdir / "suite" / "pytest.ini"), "--import-mode=importlib"),
        *("-p", "graders.plugin.pytest_plugin", "-p", "graders.misconceptions.pytest_hooks"),
        *("-p", "_hypothesis_pytestplugin", "-q"),
        "--tb=native",  # the kit writes its own feedback; pytest's source-parsing traceback costs seconds
        *("-W", "ignore::pytest.PytestAssertRewriteWarning"),
    )
    report = workdir / "report" / "report.json"  # figures are drawn beside it
    run = settings.submission_run(workdir / "impl", workdir / "suite", report, sandboxed)
    return run.pytest_args(workdir)


def driver_env(workdir: Path) -> dict[str, str]:
    """The driver's whole environment: nothing of the teacher's, nothing that names the kit's answers."""
    import sys

    bindir = os.path.dirname(sys.executable)
    return {
        "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workdir),
        "TMPDIR": str(workdir / "tmp"),
        "USER": "dtlab",
        "LOGNAME": "dtlab",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "GLOO_SOCKET_IFNAME": "lo",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # only the kit's and hypothesis's plugins, named in argv
    }


def grade(staged: Staged, settings: Settings, server, base: Path, slot: int = 0) -> StudentResult:
    """Grade ``staged`` with the warm ``server``; ``slot`` picks the job's unprivileged uid."""
    started = time.monotonic()
    missing = missing_graders(settings.chapter, Path(settings.kit_root))
    if missing:
        return _not_graded(staged, settings, missing)
    workdir = prepare(staged, settings, base)
    root_dir = Path(str(workdir) + ".root")
    group = None
    try:
        root_dir.mkdir()
        request, group = _request(workdir, root_dir, settings, slot)
        messages, timed_out = _run(server, request, settings.limits.wall_s)
    except (OSError, EOFError) as exc:  # the sandbox could not be set up for this job: the batch goes on
        return _not_graded(staged, settings, say("verdict:no sandbox", error=exc))
    finally:
        hit = group.events() if group else []
        if group:
            group.remove()
        log = tail_file(workdir / "driver.log")
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(root_dir, ignore_errors=True)
    result = interpret(staged, settings, messages, timed_out, hit, log)
    result.seconds = time.monotonic() - started
    return result


def _request(
    workdir: Path, root_dir: Path, settings: Settings, slot: int
) -> tuple[dict, sandbox.Cgroup | None]:
    """What the warm server needs to grade ``workdir``, and the job's cgroup (made here)."""
    isolation = sandbox.detect()
    uid = config.sandbox_uid() + slot if isolation.drop_uid else None
    if uid is not None:
        for path in [workdir, *workdir.rglob("*")]:
            os.lchown(path, uid, uid)
    group = None
    if isolation.cgroup:
        group = sandbox.Cgroup.create(
            f"dtlab-{os.getpid()}-{workdir.name}", settings.limits, isolation.cgroup
        )
    request = {
        "workdir": str(workdir),
        "root_dir": str(root_dir),
        "argv": pytest_argv(workdir, settings),
        "env": driver_env(workdir),
        "limits": asdict(settings.limits),
        "isolation": isolation.to_dict(),
        "cgroup_procs": group.procs_files if group else [],
        "uid": uid,
        "scratch": [str(workdir / "suite")],
    }
    return request, group


def _run(server, request: dict, wall_s: float) -> tuple[list[dict], bool]:
    read_fd, write_fd = os.pipe()
    try:
        try:
            supervisor = server.launch(request, write_fd)
        finally:
            os.close(write_fd)
        return _collect(read_fd, supervisor, wall_s)
    finally:
        os.close(read_fd)


def _not_graded(staged: Staged, settings: Settings, why: object) -> StudentResult:
    book = Gradebook(impl=staged.student_id, profile=settings.profile)
    fill_unreported(book, settings.chapter, why)
    return StudentResult(
        staged.student_id,
        book,
        error=in_lang(why, settings.lang),
        error_kind=FailureKind.INTERNAL,
        notes=[in_lang(note, settings.lang) for note in staged.notes],
        timestamp=staged.timestamp,
        digest=staged.digest,
    )


def _collect(read_fd: int, supervisor: int, wall_s: float) -> tuple[list[dict], bool]:
    """Read the driver's report and the supervisor's status, stopping the tree at ``wall_s``.

    Once the report is in, the tree has nothing left worth waiting for: as at the wall-clock
    limit, the supervisor kills it at once and reports how it ended.
    """
    data = bytearray()
    end = time.monotonic() + wall_s
    reported = timed_out = False
    stop_at = None
    while True:
        now = time.monotonic()
        if stop_at is None and now >= end:
            timed_out = not reported
            _signal(supervisor, signal.SIGTERM)
            stop_at = now + 5
        if stop_at is not None and now >= stop_at:
            _signal(supervisor, signal.SIGKILL)
            break
        ready, _, _ = select.select([read_fd], [], [], max(0.0, min((stop_at or end) - now, 1.0)))
        if not ready:
            continue
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            break
        if len(data) < REPORT_LIMIT:
            data += chunk
        if not reported and b'{"report"' in data and data.endswith(b"\n"):
            reported = True
            end = time.monotonic()
    messages = []
    for line in bytes(data).splitlines():
        try:
            messages.append(json.loads(line))
        except ValueError:
            pass
    return messages, timed_out


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass
