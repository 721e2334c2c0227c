"""Batch grading at class scale: resumable after a hard kill, reproducible, and spread over Dask."""

import csv
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from graders.gradebook import Gradebook
from graders.grading import sandbox
from graders.grading.result import Settings, StudentResult
from graders.grading.sandbox import process_tree
from graders.grading.store import ResultStore

pytestmark = pytest.mark.many_submissions

STUDENTS = ("carol", "dave", "erin", "frank")
EXPECTED = {"carol": 2, "dave": 1, "erin": 0, "frank": 0}


@pytest.fixture(scope="module")
def submissions(kit_root, tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    for student in STUDENTS:
        shutil.copytree(kit_root / "fixtures/submissions/ch2" / student, folder / student)
    return folder


@pytest.fixture(scope="module")
def batch_command(grade_command):
    """``dtlab grade`` with the grading profile, a 3 s deadline and two jobs."""
    return lambda submissions, out, *extra: grade_command(
        submissions, out, "--profile", "grading", "--deadline", "3", "--jobs", "2", *extra
    )


def scores(out):
    with open(Path(out) / "grades_wide.csv", newline="") as fh:
        return {row["student_id"]: int(row["score"]) for row in csv.DictReader(fh)}


def parts(out):
    """Every part's status, points and (for deterministic kinds) message, per student."""
    found = {}
    for path in sorted((Path(out) / ".dtlab" / "results").glob("*.json")):
        book = json.loads(path.read_text())["result"]["book"]
        for row in book["exercises"]:
            for part in row["parts"]:
                deterministic = part["kind"] in ("wrong", "banned", "integrity", "submission")
                message = part["failure"] if deterministic else None
                found[(path.stem, part["exercise"], part["part"])] = (part["status"], part["points"], message)
    return found


@pytest.fixture(scope="module")
def first_run(submissions, tmp_path_factory, batch_command):
    out = tmp_path_factory.mktemp("first")
    run = subprocess.run(batch_command(submissions, out), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return out, run.stdout


def test_scores_and_summary(first_run):
    out, stdout = first_run
    assert scores(out) == EXPECTED
    assert "4 student(s): 4 graded now, 0 resumed" in stdout
    assert "ch2.ring_all_gather" in stdout and "failures by kind:" in stdout
    assert "submissions/min" in stdout and "overhead beyond the graders" in stdout


@pytest.mark.parametrize(
    "changed",
    [
        {"deadline": 30.0},
        {"limits": {"wall_s": 5.0}},
        {"limits": {"memory_mb": 512}},
        {"limits": {"pids": 32}},
        {"limits": {"disk_mb": 64}},
        {"profile": "ci"},
        {"lang": "vi"},
    ],
    ids=lambda changed: "-".join([*changed, *changed.get("limits", {})]),
)
def test_a_stored_result_is_reused_only_under_the_same_verdict_settings(tmp_path, changed):
    """A 0/20 after a 5 s timeout must not come back when the teacher reruns with --timeout 600."""
    before = Settings.of("ch2", deadline=3.0, limits=sandbox.Limits(wall_s=600.0))
    store = ResultStore(tmp_path, before)
    store.save(StudentResult("erin", Gradebook(), error="timed out", error_kind="timeout", digest="d1"))
    assert ResultStore(tmp_path, before).load("erin", "d1") is not None
    limits = sandbox.Limits(**{"wall_s": 600.0, **changed.get("limits", {})})
    after = Settings.of(
        "ch2",
        changed.get("profile", "grading"),
        changed.get("deadline", 3.0),
        limits,
        lang=changed.get("lang", "en"),
    )
    assert ResultStore(tmp_path, after).load("erin", "d1") is None


def test_the_driver_writes_feedback_in_the_teachers_language(tmp_path):
    from graders.grading.sandboxed_run import pytest_argv

    (tmp_path / "impl").mkdir()  # the submission's folder, as prepare() writes it
    assert "--lang=vi" in pytest_argv(tmp_path, Settings.of("ch2", lang="vi"))
    assert "--lang=en" in pytest_argv(tmp_path, Settings.of("ch2"))


def _cgroups_of(pid):
    return [p for p in Path("/sys/fs/cgroup").glob(f"**/dtlab-{pid}-*") if p.is_dir()]


def _tree_of(pid):
    """Every process of the batch ``pid``: its descendants, and the members of its cgroups."""
    found = set(process_tree.descendants(pid))
    for group in _cgroups_of(pid):
        try:
            found.update(int(p) for p in (group / "cgroup.procs").read_text().split())
        except OSError:
            pass
    return found


def _alive(pid):
    try:
        return process_tree.stat_fields(Path(f"/proc/{pid}"))[0] != "Z"
    except (OSError, ValueError):
        return False


def test_a_killed_batch_resumes_without_regrading_and_scores_the_same(
    submissions, first_run, tmp_path, batch_command
):
    out = tmp_path / "out"
    results = out / ".dtlab" / "results"
    batch = subprocess.Popen(
        batch_command(submissions, out),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (results.exists() and any(results.glob("*.json"))):
        time.sleep(0.2)
    tree = _tree_of(batch.pid)
    assert len(tree) >= 4  # the warm server, and a supervisor, a driver and its world per job
    os.kill(batch.pid, signal.SIGKILL)  # kill -9 of the batch alone: no clean-up code runs
    batch.wait()
    finished = sorted(p.stem for p in results.glob("*.json"))
    assert 1 <= len(finished) < len(STUDENTS)
    assert not (out / "grades.csv").exists()  # never a half-written gradebook
    for path in results.glob("*.json"):
        json.loads(path.read_text())  # whole files only
    end = time.monotonic() + 3  # every process dies with the batch (parent-death signals)
    while (survivors := sorted(p for p in tree if _alive(p))) and time.monotonic() < end:
        time.sleep(0.05)
    assert survivors == [], f"processes of the killed batch still run: {survivors}"

    mtimes = {p.stem: p.stat().st_mtime_ns for p in results.glob("*.json")}
    run = subprocess.run(batch_command(submissions, out), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert _cgroups_of(batch.pid) == []  # reaped when the next batch started
    assert list(Path(tempfile.gettempdir()).glob(f"{sandbox.FOLDER_PREFIX}{batch.pid}-*")) == []
    assert f"{len(finished)} resumed" in run.stdout
    for student in finished:  # not graded again
        assert (results / f"{student}.json").stat().st_mtime_ns == mtimes[student]
    assert scores(out) == EXPECTED
    first_out, _ = first_run
    assert parts(out) == parts(first_out)  # the grading profile gives the same verdicts every run


def test_a_changed_submission_is_graded_again(submissions, first_run, tmp_path, batch_command):
    first_out, _ = first_run
    out = tmp_path / "out"
    shutil.copytree(first_out, out)
    changed = tmp_path / "class"
    shutil.copytree(submissions, changed)
    (changed / "erin" / "collectives.py").write_text((changed / "dave" / "collectives.py").read_text())
    run = subprocess.run(batch_command(changed, out), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "1 graded now, 3 resumed" in run.stdout
    assert scores(out)["erin"] == 1


def test_grading_spread_over_a_dask_cluster(submissions, tmp_path, batch_command):
    distributed = pytest.importorskip("distributed")
    quick = {student: EXPECTED[student] for student in ("dave", "erin", "frank")}
    for student in quick:
        shutil.copytree(submissions / student, tmp_path / "class" / student)
    out = tmp_path / "out"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        command = batch_command(
            tmp_path / "class", out, "--executor", "dask", "--scheduler", cluster.scheduler_address
        )
        run = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert scores(out) == quick
