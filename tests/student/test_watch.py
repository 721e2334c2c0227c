"""``dtlab watch``: a save re-grades exactly the exercises whose code it changed, with the verdict a
fresh ``pytest exercises/ch2`` gives; a save that changes nothing re-grades nothing; Ctrl-C leaves
no process behind."""

import ast
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from graders.catalog import Exercise
from graders.plugin.run_spec import GradingRun
from graders.student.watch_changes import snapshot

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

MODULE = '''import torch
from .helpers import twice

SCALE = 2


def _helper(x):
    return x + 1


def a(x):
    """A."""
    return _helper(x) * SCALE


def b(x):
    return _helper(x)


def c(x):
    return twice(x)


def d(x):
    return globals()["_helper"](x)
'''
EXERCISES = [Exercise(f"ch9.{name}", "m", name, {"result": 1}) for name in "abcd"] + [
    Exercise("ch9.e", "other", "e", {"result": 1})
]


def _changed(tmp_path, edit, *, helpers="def twice(x):\n    return 2 * x\n", other="def e():\n    pass\n"):
    (tmp_path / "helpers.py").write_text(helpers)
    (tmp_path / "other.py").write_text(other)
    (tmp_path / "m.py").write_text(MODULE)
    before = snapshot(tmp_path, EXERCISES)
    edit(tmp_path)
    after = snapshot(tmp_path, EXERCISES)
    changed = {e for e in before.fingerprints if before.fingerprints[e] != after.fingerprints.get(e)}
    return sorted(e.split(".")[1] for e in changed), after


def _replace(old, new, name="m.py"):
    def edit(folder):
        path = folder / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    return edit


@pytest.mark.parametrize(
    ("edit", "changed"),
    [
        (_replace("* SCALE", "* SCALE * 1"), ["a", "d"]),  # a's own body; d reads names by string
        (_replace("return x + 1", "return x + 2"), ["a", "b", "d"]),  # a helper two exercises call
        (_replace("SCALE = 2", "SCALE = 3"), ["a", "b", "c", "d"]),  # module level: every exercise
        (_replace("2 * x", "3 * x", "helpers.py"), ["a", "b", "c", "d"]),  # a sibling module it imports
        (_replace('"""A."""', '"""A."""  # a comment\n\n'), []),  # comments and layout only
        (_replace("pass", "return 1", "other.py"), ["e"]),  # another module
    ],
    ids=["own body", "shared helper", "module level", "sibling", "comment", "other module"],
)
def test_a_save_changes_the_fingerprints_of_the_exercises_that_reach_the_edit(tmp_path, edit, changed):
    assert _changed(tmp_path, edit)[0] == changed


def test_the_capstone_is_regraded_when_an_earlier_chapter_it_imports_changes(kit_root, tmp_path):
    """The capstone imports chapters 5-7 (``from ..ch6.blocks import ...``; blocks imports its own
    ``.layers``): an edit there changes the capstone's fingerprint and no other exercise's, and the
    watcher polls those folders too."""
    import shutil

    from graders.catalog import CHAPTERS
    from graders.student.watch_changes import file_states

    for chapter in ("ch5", "ch6", "ch7", "ch11"):
        shutil.copytree(kit_root / "solutions" / chapter, tmp_path / chapter)
    capstone = CHAPTERS["ch11"]
    before = snapshot(tmp_path / "ch11", list(capstone.exercises)).fingerprints
    layers = tmp_path / "ch6" / "layers.py"
    layers.write_text(layers.read_text() + "\n\ndef helper():\n    return 1\n")
    after = snapshot(tmp_path / "ch11", list(capstone.exercises)).fingerprints
    assert [e for e in before if before[e] != after[e]] == ["ch11.trainer_3d"]
    states = file_states(tmp_path / "ch11", capstone.builds_on)
    assert {"../ch6/layers.py", "../ch7/executor.py", "framework.py"} <= set(states)


def test_a_module_that_does_not_compile_holds_back_its_exercises_only(tmp_path):
    changed, after = _changed(tmp_path, _replace("def b(x):", "def b(x:"))
    assert list(after.broken) == ["m.py"]
    why, ids = after.broken["m.py"]
    line = MODULE.splitlines().index("def b(x):") + 1
    assert why.startswith(f"line {line}:") and ids == ("ch9.a", "ch9.b", "ch9.c", "ch9.d")
    assert list(after.fingerprints) == ["ch9.e"] and changed == ["a", "b", "c", "d"]


# -- the command, end to end ------------------------------------------------------------------


def _function(source: str, name: str) -> tuple[int, int]:
    node = next(n for n in ast.parse(source).body if getattr(n, "name", "") == name)
    return node.lineno - 1, node.end_lineno


def _with_solution_of(stub: str, solution: str, name: str) -> str:
    """The stub file with function ``name`` taken from the solution."""
    lines, answer = stub.splitlines(keepends=True), solution.splitlines(keepends=True)
    start, end = _function(stub, name)
    s_start, s_end = _function(solution, name)
    return "".join(lines[:start] + answer[s_start:s_end] + lines[end:])


class _Output:
    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until(self, pattern: str, timeout: float) -> list[str]:
        """The lines up to the first that matches ``pattern`` (a regular expression)."""
        end, taken = time.monotonic() + timeout, []
        while True:
            try:
                line = self._queue.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(
                    f"no {pattern!r} within {timeout} s:\n" + "\n".join(self.lines)
                ) from None
            if line is None:
                raise AssertionError(f"dtlab watch ended before {pattern!r}:\n" + "\n".join(self.lines))
            self.lines.append(line)
            taken.append(line)
            if re.search(pattern, line):
                return taken

    def quiet_for(self, seconds: float) -> list[str]:
        end, taken = time.monotonic() + seconds, []
        while (left := end - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is not None:
                taken.append(line)
        return taken


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in os.listdir(f"/proc/{parent}/task") if os.path.isdir(f"/proc/{parent}/task") else ():
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                continue
            found.update(children)
            todo += children
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _rows(lines: list[str]) -> list[str]:
    return [line.split()[0] for line in lines if re.match(r"ch2\.\w+\s+\d+/\d+\s", line)]


def _failure(lines: list[str]) -> list[str]:
    start = next(i for i, line in enumerate(lines) if line.startswith("ch2.ring_shift [result]"))
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("hint:"))
    return lines[start : end + 1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_watch_regrades_exactly_the_changed_exercise_and_stops_cleanly(kit_root, tmp_path):
    stub = (kit_root / "exercises/ch2/collectives.py").read_text()
    solution = (kit_root / "solutions/ch2/collectives.py").read_text()
    correct = _with_solution_of(stub, solution, "ring_shift")
    wrong = correct.replace("    return received\n", "    return tensor.clone()\n")
    assert wrong != correct
    impl = tmp_path / "ch2"
    impl.mkdir()
    (impl / "collectives.py").write_text(correct)
    (impl / "cost_model.py").write_text((kit_root / "exercises/ch2/cost_model.py").read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTEST_", "HYPOTHESIS_"))}
    env.update(PYTHONPATH=str(kit_root), PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "graders", "watch", "ch2", f"--impl={impl}", "--profile=ci"]
    # started with SIGINT ignored, as a background job of a shell script is (``dtlab watch &``,
    # or pytest run that way by scripts/test.sh): Ctrl-C must still stop it
    watch = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    out = _Output(watch.stdout)
    try:
        first = out.until(r"watching collectives.py, cost_model.py", timeout=300)
        assert any(re.match(r"ch2\.ring_shift\s+1/1\s+passed", line) for line in first), "\n".join(first)
        assert any(re.match(r"ch2\.ring_reduce_scatter\s+0/3\s+not started", line) for line in first)
        children = _descendants(watch.pid)
        assert children, "the worker worlds run in the watch's own processes"

        (impl / "collectives.py").write_text(wrong)
        run = out.until(r"verdict [\d.]+ s after the save was seen · ch2 0/20", timeout=120)
        assert any(line.endswith("collectives.py changed: re-grading ch2.ring_shift") for line in run), run
        assert _rows(run) == ["ch2.ring_shift"], "\n".join(run)
        assert any(re.match(r"ch2\.ring_shift\s+0/1\s+failed", line) for line in run)
        fresh = subprocess.run(
            [sys.executable, "-m", "pytest", str(kit_root / "exercises/ch2"), f"--impl={impl}"]
            + ["-k", "ring_shift", "-p", "no:cacheprovider", "--hypothesis-profile=ci"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert _failure(run) == _failure(fresh.stdout.splitlines()), fresh.stdout  # the same verdict

        (impl / "collectives.py").write_text(wrong)  # the same bytes again, with a new mtime
        assert out.quiet_for(1.5) == []

        (impl / "collectives.py").write_text(wrong.replace("def ring_shift(", "def ring_shift(("))
        out.until(r"collectives.py does not compile \(line \d+: .*\): fix it and save again", timeout=30)
        (impl / "collectives.py").write_text(correct)
        run = out.until(r"verdict [\d.]+ s after the save was seen · ch2 1/20", timeout=120)
        assert _rows(run) == ["ch2.ring_shift"], "\n".join(run)

        children |= _descendants(watch.pid)
        os.killpg(watch.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
        assert watch.wait(timeout=60) == 0
        out.until("dtlab watch stopped", timeout=5)
        left = [pid for pid in children if _alive(pid)]
        deadline = time.monotonic() + 5
        while left and time.monotonic() < deadline:  # a killed process may take a moment to go
            time.sleep(0.1)
            left = [pid for pid in left if _alive(pid)]
        assert left == [], f"processes left behind: {left}"
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()


def test_a_file_saved_in_place_is_read_once_it_is_written_not_while_it_is_empty(tmp_path):
    from graders.student.watch import Watch
    from graders.student.watch_changes import file_states

    path = tmp_path / "collectives.py"
    path.write_text("x = 1\n")
    watch = Watch("ch2", run=GradingRun(impl=tmp_path).with_defaults())
    watch.states = file_states(tmp_path)
    path.write_text("")  # an editor truncates the file, then writes it
    writer = threading.Timer(0.3, path.write_text, args=("x = 2\n",))
    writer.start()
    states = watch._settled(file_states(tmp_path), time.monotonic() + 5)
    writer.join()
    assert states["collectives.py"][1] == len("x = 2\n")
