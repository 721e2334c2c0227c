"""Hostile submissions in one batch with an honest one: each ends with a clear reason of its own,
the honest student keeps full marks, every row of every output is there and well formed, and
nothing of the batch is left on the machine afterwards.

The samples are in fixtures/submissions/adversarial (each misbehaves in one function, the rest of
its file is the untouched stub, or a complete answer for sigint_parent). Alice is the honest
student of fixtures/submissions/ch2.

They attack whatever they can reach, so they run only inside the full sandbox. As root (CI) a
missing layer is a failure, never a skip; without root they cannot run, and the run says so in
its warnings summary, not only in a skip reason nobody reads.
"""

import csv
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import pytest

from graders.grading import sandbox

SAMPLES = [
    "hang",
    "infinite_loop",
    "rank_exit",
    "segfault",
    "memory_bomb",
    "fork_bomb",
    "forged_results",
    "monkeypatch_grader",
    "print_flood",
    "trojan_files",
    "snoop",
    "disk_filler",
    "sigint_parent",
    "signal_everyone",
]
DISK_MB = 256

ISOLATION = sandbox.detect()
AS_ROOT = os.geteuid() == 0
LAYERS = {
    "PID, network and mount namespaces": ISOLATION.namespaces,
    "the whitelisted root and its disk quota": ISOLATION.pivot_root,
    "a writable cgroup": bool(ISOLATION.cgroup),
    "an unprivileged uid per job": ISOLATION.drop_uid,
}
MISSING = [layer for layer, present in LAYERS.items() if not present]
NOT_RUN = (
    "THE HOSTILE SAMPLES WERE NOT GRADED: they run only inside the full sandbox, which needs root "
    f"(missing here: {', '.join(MISSING)}; {ISOLATION.describe()}). Run the kit's tests as root, "
    "as CI does, to prove the sandbox holds."
)
pytestmark = [pytest.mark.many_submissions]
if not AS_ROOT:
    warnings.warn(NOT_RUN, pytest.PytestWarning, stacklevel=1)
    pytestmark.append(pytest.mark.skip(reason=NOT_RUN))


def test_the_sandbox_has_every_layer_the_hostile_samples_need():
    assert not MISSING, (
        f"as root, every layer must work; missing: {', '.join(MISSING)} ({ISOLATION.describe()})"
    )


def _leftovers(pid: int) -> list[str]:
    """Processes, cgroups and folders of the batch ``pid`` still on the machine."""
    found = [str(p) for p in Path("/sys/fs/cgroup").glob(f"**/dtlab-{pid}-*") if p.is_dir()]
    found += [str(p) for p in Path(tempfile.gettempdir()).glob(f"{sandbox.FOLDER_PREFIX}{pid}-*")]
    for cgroup_file in Path("/proc").glob("[0-9]*/cgroup"):
        try:
            if f"/dtlab-{pid}-" in cgroup_file.read_text():
                found.append(f"process {cgroup_file.parent.name}")
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def batch(kit_root, tmp_path_factory, grade_command):
    if MISSING:
        pytest.fail(f"the hostile samples need every sandbox layer; missing: {', '.join(MISSING)}")
    submissions = tmp_path_factory.mktemp("adversarial")
    for name in SAMPLES:
        shutil.copytree(kit_root / "fixtures/submissions/adversarial" / name, submissions / name)
    shutil.copytree(kit_root / "fixtures/submissions/ch2/alice", submissions / "alice")
    out = tmp_path_factory.mktemp("out")
    limits = (
        f"--profile ci --jobs 2 --deadline 3 --timeout 180 --memory-mb 2048 --pids 256 --disk-mb {DISK_MB}"
    )
    started = time.monotonic()
    run = subprocess.Popen(
        grade_command(submissions, out, *limits.split()),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout, stderr = run.communicate(timeout=900)
    wall = time.monotonic() - started
    assert run.returncode == 0, stdout[-4000:] + stderr[-4000:]
    print(f"\nhostile batch: {len(SAMPLES)} samples and an honest student in {wall:.1f} s wall")
    with open(out / "grades_wide.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return out, {row["student_id"]: row for row in rows}, rows, stdout, run.pid


def reason(batch, student):
    """The student's Markdown feedback (with the Markdown escapes undone, for reading)."""
    return re.sub(r"\\(.)", r"\1", (batch[0] / "feedback" / f"{student}.md").read_text())


def test_the_honest_student_keeps_full_marks(batch):
    _, rows, _, _, _ = batch
    assert rows["alice"]["score"] == "20" and rows["alice"]["status"] == "graded"


def test_no_row_is_lost_or_corrupted(batch):
    out, rows, raw, _, _ = batch
    assert sorted(rows) == sorted(SAMPLES + ["alice"]) and len(raw) == len(SAMPLES) + 1
    for row in raw:
        assert row["max_score"] == "20" and 0 <= int(row["score"]) <= 20
    with open(out / "grades.csv", newline="") as fh:
        grades = list(csv.DictReader(fh))
    assert sorted(r["student_id"] for r in grades) == sorted(rows)
    for student in rows:
        results = json.loads((out / "gradescope" / student / "results.json").read_text())
        assert results["score"] == float(rows[student]["score"])
        assert (out / "feedback" / f"{student}.html").read_text().startswith("<!DOCTYPE html>")


def test_nothing_of_the_batch_is_left_on_the_machine(batch):
    assert _leftovers(batch[4]) == []


def test_hang_and_infinite_loop_are_stopped_at_the_deadline(batch):
    for student in ("hang", "infinite_loop"):
        text = reason(batch, student)
        assert "hang (deadline passed)" in text and "did not finish within its 3 s deadline" in text, student
        assert "in ring_shift" in text


def test_one_rank_exiting_is_a_crash_naming_the_rank(batch):
    text = reason(batch, "rank_exit")
    assert "rank 1 crashed" in text and "exited with code 3" in text


def test_a_segfault_is_a_crash_with_its_signal(batch):
    assert "killed by SIGSEGV" in reason(batch, "segfault")


def test_a_memory_bomb_is_refused_at_once(batch):
    text = reason(batch, "memory_bomb")
    assert "can't allocate memory" in text and "53687091200 bytes" in text


def test_a_fork_bomb_is_contained(batch):
    _, rows, _, _, _ = batch
    text = reason(batch, "fork_bomb")
    assert "hang (deadline passed)" in text or "ceiling of 256 processes" in text
    assert rows["fork_bomb"]["score"] == "0"


def test_a_forged_report_is_never_read(batch):
    out, rows, _, _, _ = batch
    assert rows["forged_results"]["score"] == "0"
    assert "wrong result" in reason(batch, "forged_results")
    stored = json.loads((out / ".dtlab/results/forged_results.json").read_text())
    assert stored["result"]["book"]["score"] == 0  # the batch's own record, not a forged one


def test_a_grader_patched_from_graded_code_is_never_reached(batch):
    text = reason(batch, "monkeypatch_grader")
    assert "goes around the graders' guard" in text
    assert "imports the grading kit" in text


def test_a_print_flood_is_cut_and_grading_goes_on(batch):
    _, rows, _, _, _ = batch
    assert rows["print_flood"]["ch2.ring_shift"] == "1"  # its ring_shift is right after the flood


def test_files_that_would_hijack_pytest_are_ignored_and_noted(batch):
    _, rows, _, _, _ = batch
    assert rows["trojan_files"]["ch2.ring_shift"] == "1" and rows["trojan_files"]["score"] == "1"
    for name in ("conftest.py", "pytest.ini", "sitecustomize.py", "evil.pth"):
        assert f"ignored {name}" in rows["trojan_files"]["notes"]


def test_graded_code_sees_no_answers_no_network_and_no_privilege(batch):
    text = reason(batch, "snoop")
    assert "env=[] path=[]" in text  # nothing in the environment or sys.path names the solutions
    assert "solutions=False hidden=False fixtures=False" in text
    assert "interfaces=['lo']" in text and "uid=0" not in text
    assert "init_cmdline=b''" in text  # the driver's command line names the kit's folder: read as empty


def test_graded_code_writes_only_where_nothing_can_run_and_starts_no_program(batch):
    text = reason(batch, "snoop")
    assert "writable=['nosuid,nodev,noexec']" in text  # work folder, HOME, TMPDIR, /tmp, /dev/shm
    assert "exec_python='FileNotFoundError'" in text  # no program loader: no dynamic program starts
    assert "exec_loader='PermissionError'" in text  # nor the loader itself
    assert "exec_written='suid=True PermissionError'" in text  # the bit is set, but nothing runs


def test_a_disk_filler_is_stopped_by_its_quota(batch):
    _, rows, _, _, _ = batch
    text = reason(batch, "disk_filler")
    assert f"disk quota exceeded: the submission filled its {DISK_MB} MB work area" in text
    assert "disk filler stopped by No space left on device" in text and "no quota stopped it" not in text
    assert rows["disk_filler"]["score"] == "0"


def test_signalling_the_driver_interrupts_nothing(batch):
    _, rows, _, _, _ = batch
    row, text = rows["sigint_parent"], reason(batch, "sigint_parent")
    assert row["status"] == "graded" and "interrupted" not in text
    assert row["ch2.ring_all_reduce"] == "0" and row["score"] == "17"  # the hidden tests counted
    assert "your code sent SIGINT to the grading process" in text  # never sent: refused at the rank


def test_a_signal_to_the_grading_processes_costs_only_its_own_exercise(batch):
    _, rows, _, _, _ = batch
    row, text = rows["signal_everyone"], reason(batch, "signal_everyone")
    assert row["status"] == "graded" and "internal" not in row["failures"]
    signalling = ("ring_shift", "broadcast", "reduce", "ring_all_gather")
    assert [row[f"ch2.{name}"] for name in signalling] == ["0"] * 4
    assert row["score"] == "13"  # every other exercise graded as usual
    for said in (
        "your code sent SIGTERM to the grading process (pid",  # its parent
        "your code sent SIGTERM to the grading process (pid 1)",
        "your code sent SIGTERM to every process it could reach (pid -1)",
        "your code sent SIGINT to its own process group",
    ):
        assert said in text, said
    assert "sends a signal" in row["integrity"] and "(os.kill)" in row["integrity"]


def test_integrity_flags_are_in_the_wide_csv_and_the_summary(batch):
    _, rows, _, stdout, _ = batch
    assert "ends the process (os._exit)" in rows["rank_exit"]["integrity"]
    assert "failures by kind:" in stdout and "isolation:" in stdout
