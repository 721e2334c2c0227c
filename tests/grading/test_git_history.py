"""A class cloned from GitHub Classroom: each student's repository is graded at its last commit by
the due date (committer date), read from git's objects, never from the working tree, and without
running anything of the repository's; the commit is in the wide CSV and the feedback. Intake and
outputs only: no worker world (the graded run is in test_samples.py's tier)."""

import csv
import os
import shutil
import stat
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from graders.cli.main import main
from graders.grading import batch, git_history, intake
from graders.grading import class_pipeline as pipeline
from graders.grading.class_pipeline import ClassRun, ClassState
from graders.grading.reports import feedback, outputs
from graders.grading.result import Settings

from .test_outputs import result

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "submissions" / "ch2"
DUE = "2026-12-01T23:59+07:00"
BEFORE = "2026-11-30T10:00:00+07:00"
AFTER = "2026-12-02T09:00:00+07:00"


def _git(repo: Path, *args: str, when: str = BEFORE) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_CONFIG_NOSYSTEM": "1"}
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    who = ["-c", "user.name=Student", "-c", "user.email=student@uni.edu", "-c", "init.defaultBranch=main"]
    run = subprocess.run(["git", *who, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def commit(repo: Path, sample: str, when: str) -> str:
    """Commit ``sample``'s ch2 files as ``exercises/ch2/`` at ``when``; returns the hash."""
    folder = repo / "exercises" / "ch2"
    folder.mkdir(parents=True, exist_ok=True)
    for path in (SAMPLES / sample).glob("*.py"):
        shutil.copy(path, folder / path.name)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"{sample} at {when}", when=when)
    return _git(repo, "rev-parse", "HEAD")


def new_repo(folder: Path) -> Path:
    folder.mkdir(parents=True)
    _git(folder, "init", "-q")
    return folder


def module(sample: str) -> bytes:
    return (SAMPLES / sample / "collectives.py").read_bytes()


@pytest.fixture
def cloned(tmp_path):
    """``gh classroom clone``'s folder: ``an`` committed before and after the due date and left
    work uncommitted, ``binh``'s only commit is late, ``chi`` handed in a plain folder."""
    root = tmp_path / "student-repos"
    an = new_repo(root / "an")
    hashes = {"an before": commit(an, "dave", BEFORE), "an after": commit(an, "alice", AFTER)}
    (an / "exercises" / "ch2" / "collectives.py").write_text("# never committed\n")
    hashes["binh"] = commit(new_repo(root / "binh"), "carol", AFTER)
    shutil.copytree(SAMPLES / "bob", root / "chi")
    return root, hashes


def intake_of(root: Path, **options) -> dict:
    run = ClassRun("ch2", root, root.parent / "out", Settings.of("ch2"), **options)
    return {s.student_id: s for s in pipeline.Intake()(run, ClassState()).staged}


def test_each_repository_is_graded_at_its_last_commit_by_the_due_date(cloned):
    root, hashes = cloned
    staged = intake_of(root, duedate=DUE)
    an, binh, chi = staged["an"], staged["binh"], staged["chi"]
    assert an.files["collectives.py"] == module("dave"), "the commit before the due date, not the tree"
    assert (an.commit, an.commit_time, an.timestamp) == (hashes["an before"], BEFORE, BEFORE)
    assert not an.commit_late and an.source.endswith(hashes["an before"])
    assert binh.files["collectives.py"] == module("carol")
    assert (binh.commit, binh.commit_time, binh.commit_late) == (hashes["binh"], AFTER, True)
    assert chi.files["collectives.py"] == module("bob") and not chi.commit, "a plain folder as before"


def test_at_head_grades_every_repository_at_its_head(cloned):
    root, hashes = cloned
    staged = intake_of(root, duedate=DUE, at_head=True)
    assert staged["an"].files["collectives.py"] == module("alice")
    assert (staged["an"].commit, staged["an"].commit_late) == (hashes["an after"], True)
    assert staged["binh"].commit == hashes["binh"] and staged["binh"].commit_late
    without_due = intake_of(root)
    assert without_due["an"].commit == hashes["an after"] and not without_due["an"].commit_late


def test_the_committer_date_counts_not_the_author_date(tmp_path):
    repo = new_repo(tmp_path / "an")
    first = commit(repo, "dave", BEFORE)
    (repo / "exercises" / "ch2" / "cost_model.py").write_text("# amended after the due date\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "written before, committed after", f"--date={BEFORE}", when=AFTER)
    due = datetime.fromisoformat(DUE)
    assert git_history.graded_commit(repo, due).hash == first


def test_a_repository_without_a_commit_has_nothing_to_grade(tmp_path):
    new_repo(tmp_path / "repos" / "an")
    (tmp_path / "repos" / "an" / "collectives.py").write_text("# never committed\n")
    staged = intake.discover(
        tmp_path / "repos", "ch2", revisions=intake.Revisions(datetime.fromisoformat(DUE))
    )
    assert staged.staged[0].files == {} and "has no commit" in staged.staged[0].notes[0]


def test_a_date_without_a_zone_is_refused(cloned):
    root, _ = cloned
    with pytest.raises(pipeline.Stopped, match="no time zone"):
        intake_of(root, duedate="2026-12-01T23:59")


def test_a_hostile_repository_runs_nothing_and_cannot_swap_its_files(tmp_path):
    """Hooks, fsmonitor, a pager, a signature program and a smudge filter of the repository's own
    config never run; a replace ref cannot show another commit's files."""
    repo = new_repo(tmp_path / "repos" / "mallory")
    graded = commit(repo, "dave", BEFORE)
    fake = commit(repo, "alice", BEFORE)
    _git(repo, "reset", "-q", "--hard", graded)
    _git(repo, "replace", graded, fake)
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    for key in ("core.fsmonitor", "core.pager", "gpg.program", "filter.evil.smudge", "diff.external"):
        _git(repo, "config", key, str(script))
    _git(repo, "config", "log.showSignature", "true")
    for hook in ("post-checkout", "pre-commit", "reference-transaction", "post-index-change"):
        (repo / ".git" / "hooks" / hook).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (repo / ".git" / "hooks" / hook).chmod(0o755)
    (repo / ".gitattributes").write_text("* filter=evil\n")

    staged = intake.discover(tmp_path / "repos", "ch2").staged[0]
    assert staged.commit == graded and staged.files["collectives.py"] == module("dave")
    assert not marker.exists(), "the repository ran a program of its own"


def test_the_wide_csv_and_the_feedback_name_the_commit_and_the_late_mark(cloned, tmp_path):
    root, hashes = cloned
    staged = intake_of(root, duedate=DUE)
    results = [batch.handed_in(result(sid), staged[sid]) for sid in ("an", "binh", "chi")]
    outputs.write_all(results, "ch2", tmp_path / "out", duedate=datetime.fromisoformat(DUE).isoformat())
    with open(tmp_path / "out" / "grades_wide.csv", newline="") as fh:
        rows = {row["student_id"]: row for row in csv.DictReader(fh)}
    assert (rows["an"]["commit"], rows["an"]["commit_time"], rows["an"]["late"]) == (
        hashes["an before"],
        BEFORE,
        "no",
    )
    assert (rows["binh"]["commit"], rows["binh"]["late"]) == (hashes["binh"], "yes")
    assert rows["chi"]["commit"] == rows["chi"]["commit_time"] == "" and rows["chi"]["timestamp"] == ""

    binh = (tmp_path / "out" / "feedback" / "binh.md").read_text()
    assert f"Graded at commit {hashes['binh'][:12]}" in binh and "Late: the graded commit" in binh
    assert "Late" not in (tmp_path / "out" / "feedback" / "an.md").read_text()
    vietnamese = feedback.markdown(results[1], "ch2", "vi")
    assert "Nộp muộn" in vietnamese and hashes["binh"][:12] in vietnamese


def test_a_stored_result_takes_the_commit_it_is_resumed_at(cloned):
    """The same files at another commit are not graded again, but the result names the new one."""
    root, hashes = cloned
    old = batch.handed_in(result("an"), intake_of(root, duedate=DUE)["an"])
    resumed = batch.handed_in(old, intake_of(root, at_head=True)["an"])
    assert (old.commit, resumed.commit) == (hashes["an before"], hashes["an after"])


def test_the_options_reach_the_class_run(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr(pipeline, "run_class", lambda run, steps: seen.update(run=run) or ClassState())
    argv = ["grade", str(tmp_path), "--chapter", "ch2", "--out", str(tmp_path / "out")]
    assert main([*argv, "--due", DUE, "--at-head"]) == 0
    assert (seen["run"].duedate, seen["run"].at_head) == (DUE, True)
    assert main([*argv, "--duedate", DUE]) == 0 and not seen["run"].at_head


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give the repository to another user")
def test_a_repository_of_another_user_is_read_all_the_same(tmp_path):
    """git refuses a repository another user owns (dubious ownership); nothing of it runs here, so
    the kit reads it all the same."""
    repo = new_repo(tmp_path / "repos" / "an")
    graded = commit(repo, "dave", BEFORE)
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, 65534, 65534)
    assert intake.discover(tmp_path / "repos", "ch2").staged[0].commit == graded
