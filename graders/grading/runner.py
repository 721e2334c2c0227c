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
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graders import catalog, config
from graders.errors import FailureKind
from graders.grading import sandbox
from graders.grading.intake import Staged
from graders.impl import KIT_ROOT
from graders.plugin.results import FAILED, Gradebook
from graders.proc import tail_file

REPORT_LIMIT = 32 * 1024 * 1024


@dataclass(frozen=True)
class Settings:
    chapter: str
    profile: str = "grading"
    deadline: float | None = None  # one task in the world (s); None: the kit's default
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    kit_root: str = str(KIT_ROOT)


@dataclass
class StudentResult:
    student_id: str
    book: Gradebook
    seconds: float = 0.0
    error: str = ""  # why grading itself did not complete (time limit, ceiling, killed driver)
    error_kind: str = ""  # a FailureKind: timeout, memory, pids, killed, internal
    notes: list[str] = field(default_factory=list)
    timestamp: str = ""
    digest: str = ""
    timing: dict = field(default_factory=dict)  # startup_s, tests_s (as the driver measured)
    figures: dict[str, str] = field(default_factory=dict)  # report-relative PNG path -> base64 bytes

    def to_dict(self) -> dict:
        data = asdict(self)
        data["book"] = self.book.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> StudentResult:
        return cls(**{**data, "book": Gradebook.from_dict(data["book"])})


def grader_files(chapter: str, kit_root: Path = KIT_ROOT) -> list[Path]:
    """The chapter's test files: public graders, then the hidden ones where the kit has them."""
    files = sorted((kit_root / "exercises" / chapter).glob("test_*.py"))
    files += sorted((kit_root / "hidden" / chapter).glob("test_*.py"))
    return files


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
    argv = [
        str(workdir / "suite"),
        f"--dtlab-report={workdir / 'report' / 'report.json'}",  # figures are drawn beside it
        f"--impl={workdir / 'impl'}",
        f"--hypothesis-profile={settings.profile}",
        f"--rootdir={workdir}",
        "-c",
        str(workdir / "suite" / "pytest.ini"),
        "--import-mode=importlib",
        "-p",
        "no:cacheprovider",
        "-p",
        "graders.plugin.pytest_plugin",
        "-p",
        "_hypothesis_pytestplugin",
        "-q",
        "--tb=native",  # the kit writes its own feedback; pytest's source-parsing traceback costs seconds
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
    ]
    if settings.deadline:
        argv.append(f"--dtlab-deadline={settings.deadline}")
    return argv


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
    isolation = sandbox.detect()
    workdir = prepare(staged, settings, base)
    root_dir = Path(str(workdir) + ".root")
    root_dir.mkdir()
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
    read_fd, write_fd = os.pipe()
    try:
        try:
            supervisor = server.launch(request, write_fd)
        finally:
            os.close(write_fd)
        messages, timed_out = _collect(read_fd, supervisor, settings.limits.wall_s)
    finally:
        os.close(read_fd)
        hit = group.events() if group else []
        if group:
            group.remove()
    result = _interpret(staged, settings, messages, timed_out, hit, workdir)
    result.seconds = time.monotonic() - started
    shutil.rmtree(workdir, ignore_errors=True)
    shutil.rmtree(root_dir, ignore_errors=True)
    return result


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


def _interpret(
    staged: Staged, settings: Settings, messages: list[dict], timed_out: bool, hit: list[str], workdir: Path
) -> StudentResult:
    status = next((m["status"] for m in messages if "status" in m), {})
    reports = [m for m in messages if "report" in m]
    # The driver's own report is the last one it wrote, and it counts only if the driver then
    # ended by itself or was stopped by us: a driver killed from inside the tree reported nothing.
    killed_inside = status.get("signal") and not status.get("terminated")
    report = reports[-1] if reports and not killed_inside else None
    driver_error = next((m["driver_error"] for m in messages if "driver_error" in m), "")
    limits = settings.limits
    error, kind = "", ""
    if report is not None:
        book = Gradebook.from_dict(report["report"])
    else:
        book = Gradebook(impl=staged.student_id, profile=settings.profile)
        if timed_out:
            error = f"grading took longer than the {limits.wall_s:g} s limit and was stopped"
            kind = FailureKind.TIMEOUT
        elif "memory" in hit:
            error = f"the submission reached the {limits.memory_mb} MB memory ceiling"
            kind = FailureKind.MEMORY
        elif "pids" in hit:
            error = f"the submission reached the ceiling of {limits.pids} processes"
            kind = FailureKind.PIDS
        elif status.get("setup_error") or driver_error:
            error = status.get("setup_error") or driver_error
            kind = FailureKind.INTERNAL
        elif status.get("signal"):
            error = f"the grading driver was killed by {status['signal']} before it reported"
            kind = FailureKind.KILLED
        else:
            log = tail_file(workdir / "driver.log")
            error = f"the graders produced no report (exit {status.get('exit')}):\n{log}"
            kind = FailureKind.INTERNAL
    notes = list(staged.notes)
    if "memory" in hit and kind != FailureKind.MEMORY:
        notes.append(f"the submission reached the {limits.memory_mb} MB memory ceiling while being graded")
    if "pids" in hit and kind != FailureKind.PIDS:
        notes.append(f"the submission reached the ceiling of {limits.pids} processes while being graded")
    _fill_unreported(book, settings.chapter, error)
    return StudentResult(
        staged.student_id,
        book,
        error=error,
        error_kind=kind,
        notes=notes,
        timestamp=staged.timestamp,
        digest=staged.digest,
        timing=(report or {}).get("timing", {}),
        figures=_figures_of(report),
    )


def _figures_of(report: dict | None) -> dict[str, str]:
    """The PNG figures the driver sent with its report (base64, only names the book lists)."""
    if not report:
        return {}
    listed = {
        name
        for row in report["report"].get("exercises", [])
        for p in row["parts"]
        for name in p.get("figures", [])
    }
    return {
        name: data
        for name, data in report.get("figures", {}).items()
        if name in listed and isinstance(data, str)
    }


def _fill_unreported(book: Gradebook, chapter: str, error: str) -> None:
    """Every exercise of the chapter appears in the gradebook, failed if it was never graded."""
    for exercise in catalog.CHAPTERS[chapter].exercises:
        for part in exercise.parts:
            if f"{exercise.id}::{part}" not in book.parts:
                book.record(exercise.id, part, FAILED, FailureKind.INTERNAL, error or "not graded")
