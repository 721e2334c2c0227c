"""The sandbox's parts on their own, without root: cgroups on fake v1 and v2 hierarchies built in a
temporary folder, the process tree on a fake ``/proc`` and on real ``sleep`` processes, the reaping
of what killed batches leave, rlimits in a forked child, the program loaders the root hides, and
the isolation probe's answer. (The confinement itself, which needs root, is exercised end to end
by tests/grading/test_adversarial.py.)
"""

import errno
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from graders import config
from graders.grading import sandbox
from graders.grading.sandbox import cgroup, process_tree, rlimits, root, stale
from graders.grading.sandbox.cgroup import Cgroup, Hierarchy
from graders.grading.sandbox.probe import say_later

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

MIB = 1024 * 1024
DEAD, LIVE = 999_001, 999_002  # batch pids, alive or not according to the fake /proc


def _alive(pid: int) -> bool:
    try:
        return process_tree.stat_fields(Path(f"/proc/{pid}"))[0] != "Z"
    except (OSError, ValueError):
        return False


@pytest.fixture(autouse=True)
def kernel_rmdir(monkeypatch):
    """A fake cgroup folder is removed as the kernel would: refused while it has live members."""

    def remove(path: Path) -> None:
        procs = path / "cgroup.procs"
        if procs.exists() and any(_alive(int(p)) for p in procs.read_text().split()):
            raise OSError(errno.EBUSY, "busy", str(path))
        shutil.rmtree(path)

    monkeypatch.setattr(cgroup, "_remove_dir", remove)


def fake_hierarchy(tmp_path: Path, version: str) -> Hierarchy:
    """``/sys/fs/cgroup`` with this process in ``/batch``: pure v2, or v1 ``memory`` + ``pids``."""
    mount, proc = tmp_path / "cgroup", tmp_path / "proc"
    (proc / str(LIVE)).mkdir(parents=True)
    if version == "v2":
        (mount / "batch").mkdir(parents=True)
        (mount / "cgroup.controllers").write_text("memory pids\n")
        lines = "0::/batch\n"
    else:
        for controller in ("memory", "pids"):
            (mount / controller / "batch").mkdir(parents=True)
        lines = "5:pids:/batch\n4:memory:/batch\n1:cpu,cpuacct:/\n0::/\n"
    (tmp_path / "self-cgroup").write_text(lines)
    return Hierarchy(mount=mount, self_cgroup=tmp_path / "self-cgroup", proc=proc)


def started_sleep() -> subprocess.Popen:
    return subprocess.Popen(["sleep", "30"])


# -- cgroups -------------------------------------------------------------------------------------


def test_a_v2_cgroup_gets_its_ceilings_below_this_process_cgroup(tmp_path):
    hierarchy = fake_hierarchy(tmp_path, "v2")
    group = Cgroup.create("dtlab-1-alice", sandbox.Limits(memory_mb=100, pids=7), "v2", hierarchy)
    path = tmp_path / "cgroup/batch/dtlab-1-alice"
    assert group.dirs == {"unified": path}
    assert (path / "memory.max").read_text() == str(100 * MIB)
    assert (path / "pids.max").read_text() == "7"
    assert not (path / "memory.swap.max").exists()  # only set where the kernel offers it
    assert group.procs_files == [str(path / "cgroup.procs")]


def test_a_v1_cgroup_is_made_in_the_memory_and_pids_hierarchies(tmp_path):
    hierarchy = fake_hierarchy(tmp_path, "v1")
    group = Cgroup.create("dtlab-1-alice", sandbox.Limits(memory_mb=100, pids=7), "v1", hierarchy)
    memory, pids = (
        tmp_path / "cgroup/memory/batch/dtlab-1-alice",
        tmp_path / "cgroup/pids/batch/dtlab-1-alice",
    )
    assert group.dirs == {"memory": memory, "pids": pids}
    assert (memory / "memory.limit_in_bytes").read_text() == str(100 * MIB)
    assert (pids / "pids.max").read_text() == "7"
    assert group.procs_files == [str(memory / "cgroup.procs"), str(pids / "cgroup.procs")]


def test_where_the_hierarchy_puts_v2(tmp_path):
    hierarchy = fake_hierarchy(tmp_path, "v2")
    assert hierarchy.v2_base() == tmp_path / "cgroup/batch"
    hybrid = fake_hierarchy(tmp_path / "hybrid", "v1")  # no cgroup.controllers at the top: v2 is "unified/"
    assert hybrid.v2_base() == tmp_path / "hybrid/cgroup/unified"
    assert hybrid.v1_base("pids") == tmp_path / "hybrid/cgroup/pids/batch"
    with pytest.raises(FileNotFoundError):
        hierarchy.v1_base("memory")  # no v1 line in a pure v2 /proc/self/cgroup


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_the_probe_finds_the_flavour_that_works_and_leaves_nothing_behind(tmp_path, version):
    hierarchy = fake_hierarchy(tmp_path, version)
    assert cgroup.cgroup_version(sandbox.Limits(), hierarchy) == (version, "")
    assert not list((tmp_path / "cgroup").rglob("dtlab-*-probe"))


def test_a_cgroup_that_cannot_be_finished_is_not_left_behind(tmp_path):
    hierarchy = fake_hierarchy(tmp_path, "v1")
    (tmp_path / "cgroup/pids/batch").rmdir()  # memory is made, then pids fails
    with pytest.raises(FileNotFoundError):
        Cgroup.create("dtlab-1-alice", sandbox.Limits(), "v1", hierarchy)
    assert not (tmp_path / "cgroup/memory/batch/dtlab-1-alice").exists()


def test_the_probe_says_why_no_cgroup_works(tmp_path):
    (tmp_path / "self-cgroup").write_text("0::/batch\n")
    hierarchy = Hierarchy(mount=tmp_path / "absent", self_cgroup=tmp_path / "self-cgroup")
    version, why = cgroup.cgroup_version(sandbox.Limits(), hierarchy)
    assert version == "" and why.startswith("v2: ") and "; v1: " in why


def test_members_are_listed_and_killed(tmp_path):
    group = Cgroup.create("dtlab-1-alice", sandbox.Limits(), "v1", fake_hierarchy(tmp_path, "v1"))
    sleepers = [started_sleep(), started_sleep()]
    try:
        for path, sleeper in zip(group.procs_files, sleepers, strict=True):
            Path(path).write_text(f"{sleeper.pid}\n{sleepers[0].pid}\n")  # a pid may be in both
        assert group.pids() == sorted(s.pid for s in sleepers)
        group.kill(wait_s=0.1)  # a fake cgroup.procs never empties: it gives up after wait_s
        assert [s.wait(timeout=5) for s in sleepers] == [-9, -9]
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()


def test_a_v2_cgroup_is_killed_through_cgroup_kill(tmp_path):
    group = Cgroup.create("dtlab-1-alice", sandbox.Limits(), "v2", fake_hierarchy(tmp_path, "v2"))
    path = group.dirs["unified"]
    (path / "cgroup.kill").write_text("0")
    (path / "cgroup.procs").write_text(f"{2**22 + 1}\n")  # above pid_max: must not be signalled
    group.kill(wait_s=0.05)
    assert (path / "cgroup.kill").read_text() == "1"


def test_remove_takes_the_folders_once_empty(tmp_path):
    group = Cgroup.create("dtlab-1-alice", sandbox.Limits(), "v1", fake_hierarchy(tmp_path, "v1"))
    group.remove()
    assert not any(path.exists() for path in group.dirs.values())


def test_remove_waits_out_a_member_that_is_still_being_torn_down(tmp_path, monkeypatch):
    """The kernel refuses ``rmdir`` for a moment after the last process left (its memory is being
    given back): the folder is tried again until it goes, not given up after a second."""
    group = Cgroup.create("dtlab-1-bob", sandbox.Limits(), "v1", fake_hierarchy(tmp_path, "v1"))
    refusals = {"left": 0}
    busy_until = time.monotonic() + 1.5

    def slow_teardown(path: Path) -> None:
        if time.monotonic() < busy_until:
            refusals["left"] += 1
            raise OSError(errno.EBUSY, "busy", str(path))
        shutil.rmtree(path)

    monkeypatch.setattr(cgroup, "_remove_dir", slow_teardown)
    group.remove(wait_s=5.0)
    assert refusals["left"] > 0 and not any(path.exists() for path in group.dirs.values())


def test_events_say_which_ceiling_was_reached(tmp_path):
    v2 = Cgroup.create("dtlab-1-a", sandbox.Limits(), "v2", fake_hierarchy(tmp_path / "2", "v2"))
    assert v2.events() == []
    (v2.dirs["unified"] / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 1\noom_kill 1\n")
    (v2.dirs["unified"] / "pids.events").write_text("max 3\n")
    assert v2.events() == ["memory", "pids"]
    v1 = Cgroup.create("dtlab-1-a", sandbox.Limits(), "v1", fake_hierarchy(tmp_path / "1", "v1"))
    (v1.dirs["memory"] / "memory.failcnt").write_text("2\n")
    (v1.dirs["pids"] / "pids.events").write_text("max 0\n")
    assert v1.events() == ["memory"]


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_what_a_dead_batch_left_is_killed_and_removed_and_nothing_of_a_live_one(tmp_path, version):
    hierarchy = fake_hierarchy(tmp_path, version)

    def made(name: str, members: str = "") -> Cgroup:
        group = Cgroup.create(name, sandbox.Limits(), version, hierarchy)
        for path in group.procs_files:  # the kernel makes it with the folder
            Path(path).write_text(members)
        return group

    leftover = started_sleep()  # graded code that outlived its batch (killed with -9)
    try:
        gone = [made(f"dtlab-{DEAD}-alice"), made(f"dtlab-{DEAD}-bob", members=f"{leftover.pid}\n")]
        kept = [
            made(f"dtlab-{LIVE}-carol", members=f"{os.getpid()}\n"),  # a running batch's
            made("dtlab-probe-17"),
            made(f"other-{DEAD}-dave"),
        ]
        folders = tmp_path / "tmp"
        for name in (f"dtlab-grade-{DEAD}-x1", f"dtlab-grade-{LIVE}-x2", "dtlab-grade-x3", "unrelated"):
            (folders / name / "alice").mkdir(parents=True)
        removed = stale.reap_stale(hierarchy, tmp=folders, wait_s=0.2)
        assert leftover.wait(timeout=5) == -signal.SIGKILL
    finally:
        leftover.kill()
        leftover.wait()
    assert not any(path.exists() for group in gone for path in group.dirs.values())
    assert all(path.exists() for group in kept for path in group.dirs.values())
    assert sorted(p.name for p in folders.iterdir()) == [
        f"dtlab-grade-{LIVE}-x2",
        "dtlab-grade-x3",
        "unrelated",
    ]
    assert str(folders / f"dtlab-grade-{DEAD}-x1") in removed


def test_a_leftover_working_in_a_dead_batchs_folder_is_killed_without_cgroups(tmp_path):
    """On a machine without cgroups a leftover is found by its working folder (and its uid)."""
    finished = subprocess.Popen(["true"])
    finished.wait()  # its pid names a batch that is gone
    folder = Path(tempfile.mkdtemp(prefix=f"dtlab-grade-{finished.pid}-"))
    os.chmod(folder, 0o755)
    (folder / "world").mkdir(mode=0o777)
    user = config.sandbox_uid() + 3 if os.geteuid() == 0 else None  # a job's uid, as the sandbox runs it
    leftover = subprocess.Popen(["sleep", "30"], cwd=folder / "world", user=user)
    bystander = subprocess.Popen(["sleep", "30"], cwd=tmp_path)
    try:
        hierarchy = Hierarchy(mount=tmp_path / "no-cgroups", self_cgroup=tmp_path / "none")
        stale.reap_stale(hierarchy, wait_s=0.1)
        assert leftover.wait(timeout=5) == -signal.SIGKILL
        assert bystander.poll() is None and not folder.exists()
    finally:
        for process in (leftover, bystander):
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


# -- the process tree ----------------------------------------------------------------------------


def fake_proc(tmp_path: Path, processes: dict[int, tuple[str, str, int, int]]) -> Path:
    """``{pid: (command, state, ppid, threads)}`` as ``/proc/<pid>/stat`` files."""
    proc = tmp_path / "proc"
    for pid, (command, state, ppid, threads) in processes.items():
        (proc / str(pid)).mkdir(parents=True)
        fields = [state, str(ppid), *["0"] * 15, str(threads), "0"]
        (proc / str(pid) / "stat").write_text(f"{pid} ({command}) {' '.join(fields)}\n")
    (proc / "self").mkdir(parents=True, exist_ok=True)
    (proc / "77").mkdir()  # gone between the listing and the read: no stat
    return proc


TREE = {
    1: ("init", "S", 0, 1),
    10: ("supervisor", "S", 1, 1),
    11: ("driver (pytest) x", "R", 10, 4),  # a name with spaces and parentheses
    12: ("rank", "S", 11, 9),
    13: ("orphan", "S", 10, 1),
    14: ("dead", "Z", 10, 1),  # a zombie is already dead: not a descendant to kill
    20: ("elsewhere", "S", 1, 2),
}


def test_stat_fields_survive_odd_command_names(tmp_path):
    fields = process_tree.stat_fields(fake_proc(tmp_path, TREE) / "11")
    assert fields[:2] == ["R", "10"] and fields[17] == "4"


def test_descendants_on_a_fake_proc(tmp_path):
    proc = fake_proc(tmp_path, TREE)
    assert process_tree.descendants(10, proc) == [11, 12, 13]
    assert process_tree.descendants(12, proc) == []
    assert process_tree.descendants(1, proc) == [10, 11, 12, 13, 20]


def test_threads_of_user_count_like_rlimit_nproc(tmp_path):
    proc = fake_proc(tmp_path, TREE)  # every fake process belongs to whoever runs the test
    assert rlimits.threads_of_user(os.getuid(), proc) == 1 + 1 + 4 + 9 + 1 + 1 + 2
    assert rlimits.threads_of_user(os.getuid() + 1, proc) == 0


def test_descendants_of_a_real_tree():
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    try:
        end = time.monotonic() + 5
        while len(sleepers := process_tree.descendants(shell.pid)) < 2 and time.monotonic() < end:
            time.sleep(0.01)
        assert len(sleepers) == 2
        assert {shell.pid, *sleepers} <= set(process_tree.descendants(os.getpid()))
    finally:
        for pid in process_tree.descendants(shell.pid):  # only the sleeps this test started
            os.kill(pid, 9)
        shell.kill()
        shell.wait()


def test_kill_descendants_ends_a_tree_with_orphans():
    """Run as a supervisor would be, in a child process of its own: a subreaper that ends its tree."""
    script = """
import json, os, subprocess, time
from graders.grading.sandbox import process_tree
from graders.proc import become_subreaper

become_subreaper()
subprocess.Popen(["sh", "-c", "(sleep 30 &); sleep 30 & wait"])  # the subshell's sleep is orphaned
end = time.monotonic() + 5
while len(process_tree.descendants(os.getpid())) < 3 and time.monotonic() < end:
    time.sleep(0.01)
before = process_tree.descendants(os.getpid())
process_tree.kill_descendants(os.getpid())
print(json.dumps([len(before), process_tree.descendants(os.getpid())]))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [3, []]


# -- rlimits, binds and the probe ----------------------------------------------------------------


def test_rlimits_in_a_forked_child():
    limits = sandbox.Limits(process_memory_mb=65536, cpu_s=30, file_mb=2, open_files=256, pids=50)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            sandbox.apply_rlimits(limits, as_root=False)
            names = [
                "RLIMIT_DATA",
                "RLIMIT_CPU",
                "RLIMIT_FSIZE",
                "RLIMIT_NOFILE",
                "RLIMIT_CORE",
                "RLIMIT_NPROC",
            ]
            values = {name: resource.getrlimit(getattr(resource, name)) for name in names}
            os.write(write, json.dumps(values).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        values = json.loads(fh.read())
    os.waitpid(pid, 0)

    def expected(name: str, value: int) -> list[int]:
        hard = resource.getrlimit(getattr(resource, name))[1]  # a lower hard limit wins
        return [value if hard == resource.RLIM_INFINITY else min(value, hard)] * 2

    assert values["RLIMIT_DATA"] == expected("RLIMIT_DATA", 65536 * MIB)
    assert values["RLIMIT_CPU"] == expected("RLIMIT_CPU", 30)
    assert values["RLIMIT_FSIZE"] == expected("RLIMIT_FSIZE", 2 * MIB)
    assert values["RLIMIT_NOFILE"] == expected("RLIMIT_NOFILE", 256)
    assert values["RLIMIT_CORE"] == [0, 0]
    assert values["RLIMIT_NPROC"][0] > 50  # this user's threads, plus the budget


def test_system_binds_are_read_only_and_never_nested():
    binds = root.system_binds()
    paths = [path for path, _ in binds]
    assert paths == sorted(paths) and not any(writable for _, writable in binds)
    assert not any(a != b and b.startswith(a + "/") for a in paths for b in paths)
    package = os.path.realpath(os.path.dirname(sandbox.__file__))
    assert any(package.startswith(path + "/") for path in paths)  # the graders package, below a bind


def test_the_program_loader_is_found_to_be_hidden():
    loader = root.program_loader()
    assert loader and os.path.basename(loader).startswith("ld-")  # this Python's ELF interpreter
    assert os.path.realpath(loader) in root.program_loaders()
    assert root.program_loader(__file__) is None  # not an ELF program


def test_isolation_describes_its_layers_and_round_trips():
    full = sandbox.Isolation(namespaces=True, pivot_root=True, cgroup="v2", drop_uid=True)
    assert full.describe() == (
        "own process tree, rlimits, cgroup v2 (memory, pids), "
        "pid+net+mount namespaces (whitelisted root), unprivileged uid per job"
    )
    assert sandbox.Isolation.from_dict(json.loads(json.dumps(full.to_dict()))) == full


def test_the_probe_notes_cross_as_data_and_are_said_in_the_readers_language():
    noted = sandbox.Isolation(
        notes=(
            say_later("sandbox:note:uid cannot run python", uid=65534),
            say_later("sandbox:note:no namespaces", error="[Errno 1] Operation not permitted"),
        )
    )
    again = sandbox.Isolation.from_dict(json.loads(json.dumps(noted.to_dict())))
    assert again == noted
    described = again.describe()
    assert described == (
        "own process tree, rlimits; uid 65534 cannot read the Python installation: graded code "
        "would run as root; namespaces unavailable ([Errno 1] Operation not permitted): "
        "graded code shares the network and files"
    )
    vi = described.in_lang("vi")
    assert vi.startswith("cây tiến trình riêng, rlimits; uid 65534 không đọc được bản cài Python")
    assert "không dùng được namespace ([Errno 1] Operation not permitted)" in vi


def test_require_safe_refuses_root_without_an_unprivileged_uid(monkeypatch):
    monkeypatch.delenv("DTLAB_SANDBOX", raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(sandbox.UnsafeIsolation):
        sandbox.require_safe(sandbox.Isolation())
    sandbox.require_safe(sandbox.Isolation(drop_uid=True))
    monkeypatch.setenv("DTLAB_SANDBOX", "unsafe")
    sandbox.require_safe(sandbox.Isolation())
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.delenv("DTLAB_SANDBOX")
    sandbox.require_safe(sandbox.Isolation())


def test_the_probe_command_prints_an_isolation():
    """What ``detect`` runs; ``off`` keeps it from making cgroups or namespaces on this machine."""
    env = {**os.environ, "DTLAB_SANDBOX": "off"}
    command = [sys.executable, "-P", "-m", "graders.grading.sandbox", "--probe"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=30, env=env, check=True)
    isolation = sandbox.Isolation.from_dict(json.loads(run.stdout))
    assert not isolation.cgroup and not isolation.namespaces
    assert "cgroup disabled by DTLAB_SANDBOX=off: memory" in isolation.describe()
    assert "DTLAB_SANDBOX=off đã tắt cgroup" in isolation.describe().in_lang("vi")
