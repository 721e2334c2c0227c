"""The kit as a package, the student's work as a workspace: ``dtlab init`` writes one, pytest and
the dtlab commands grade it as in the repository, ``dtlab upgrade`` brings a newer kit's files in
without touching the student's modules, and the wheel built from the sdist does all this from a
fresh virtual environment."""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from graders import __version__
from graders.authoring import pristine, release, workspace_files
from graders.catalog import CHAPTERS
from graders.impl import WORKSPACE_MARKER
from graders.student import workspace
from graders.student.signatures import differences

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def _env() -> dict[str, str]:
    """The environment a student's shell has: none of the kit's settings, no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTHON"))}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1"}


def _run(argv, cwd, timeout=300, ok=(0,)):
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout
    )
    said = f"{argv}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.returncode in ok, said
    return done


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_workspace_holds_the_students_files_and_nothing_of_the_teachers(kit_root, tmp_path):
    files = workspace_files.from_kit(kit_root)
    assert set(files) - {"README.md"} == {f for f in files if f.startswith("exercises/")}
    for chapter in CHAPTERS:
        assert f"exercises/{chapter}/README.md" in files
        assert any(f.startswith(f"exercises/{chapter}/test_") for f in files)
    report = workspace.init(tmp_path / "ws", files)
    ws = tmp_path / "ws"
    manifest = pristine.load(ws / "exercises")
    assert sorted(report.new_stubs) == sorted(f"exercises/{name}" for name in manifest)
    assert all(pristine.digest((ws / rel).read_text()) == manifest[rel[10:]] for rel in report.new_stubs)
    assert release.find_leaks(ws) == []
    readme = (ws / "README.md").read_text()
    assert "Tiếng Việt" in readme and "pytest exercises/ch2" in readme and "dtlab upgrade" in readme
    assert ".dtlab/" in (ws / ".gitignore").read_text()
    marker = tomllib.loads((ws / WORKSPACE_MARKER).read_text())
    assert marker["kit_version"] == __version__
    assert "exercises/ch2/test_collectives.py" in marker["kit_files"]
    assert "exercises/ch2/collectives.py" not in marker["kit_files"]  # the student's


def test_the_workspace_runs_pytest_as_the_kit_does(kit_root):
    """The workspace's pytest.ini says what pyproject.toml says to a grading run."""
    kit = tomllib.loads((kit_root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    ini = workspace.PYTEST_INI
    assert f"addopts = {kit['addopts']}\n" in ini and f"cache_dir = {kit['cache_dir']}\n" in ini


def test_a_pytest_that_cannot_import_the_kit_is_told_the_command_to_run(tmp_path):
    """Outside the kit's environment a workspace's pytest stops with the command that works (the
    Python that made the workspace), in the student's language, not a bare ModuleNotFoundError."""
    workspace.init(tmp_path / "ws")
    guard = tmp_path / "ws" / "conftest.py"
    for lang, words in (("en", "Run pytest with the Python"), ("vi", "Hãy chạy pytest bằng Python")):
        # -S: no site-packages, as a Python without the kit has none of it
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(guard), "exercises/ch2"],
            capture_output=True,
            text=True,
            env={**os.environ, "DTLAB_LANG": lang},
        )
        assert done.returncode == 4, done.stderr
        assert "cannot import the kit (No module named 'graders')" in done.stderr
        assert words in done.stderr and f"{sys.executable} -m pytest exercises/ch2" in done.stderr
        assert "Traceback" not in done.stderr


def test_init_writes_over_nothing(kit_root, tmp_path):
    files = workspace_files.from_kit(kit_root)
    (tmp_path / "README.md").write_text("mine")
    with pytest.raises(workspace.WorkspaceError, match="README.md"):
        workspace.init(tmp_path, files)
    assert (tmp_path / "README.md").read_text() == "mine" and not (tmp_path / "exercises").exists()
    workspace.init(tmp_path / "ws", files)
    with pytest.raises(workspace.WorkspaceError, match="dtlab upgrade"):
        workspace.init(tmp_path / "ws", files)


def test_every_dtlab_command_finds_the_workspace_it_runs_in(kit_root, tmp_path):
    workspace.init(tmp_path / "ws", workspace_files.from_kit(kit_root))
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "from graders.impl import KIT_ROOT, Impl; print(Impl.resolve('exercises').root)",
        ],
        cwd=tmp_path / "ws" / "exercises" / "ch2",
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert where.stdout.strip() == str((tmp_path / "ws" / "exercises").resolve()), where.stderr


def test_dtlab_init_and_upgrade_say_what_they_did(tmp_path):
    assert "a workspace in" in _run([sys.executable, "-m", "graders", "init", "ws"], tmp_path).stdout
    again = _run([sys.executable, "-m", "graders", "init", "ws"], tmp_path, ok=(2,))
    assert "dtlab upgrade" in again.stderr
    upgraded = _run([sys.executable, "-m", "graders", "upgrade"], tmp_path / "ws" / "exercises" / "ch2")
    assert "already up to date" in upgraded.stdout
    assert _run([sys.executable, "-m", "graders", "upgrade"], tmp_path, ok=(2,)).stderr


SIGNATURE_A = "def ring_shift(tensor: torch.Tensor, group=None) -> torch.Tensor:"
SIGNATURE_B = "def ring_shift(tensor: torch.Tensor, group=None, tag: int = 0) -> torch.Tensor:"
ADDED_TEST = """

def test_added_in_version_b(impl):
    from pathlib import Path

    assert impl.root == Path(__file__).resolve().parents[1]  # the workspace's exercises/
"""


def _version_b(kit_root: Path, into: Path) -> dict[str, Path]:
    """Kit version B: a changed test, a stub whose docstring changed (one the student filled, one
    never touched), a stub whose signature changed, a test file gone and a new stub module."""
    shutil.copytree(kit_root / "exercises", into / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    (into / workspace_files.README).parent.mkdir(parents=True)
    shutil.copyfile(kit_root / workspace_files.README, into / workspace_files.README)
    ex = into / "exercises"
    (ex / "ch2" / "test_cost_model.py").write_text(
        (ex / "ch2" / "test_cost_model.py").read_text() + ADDED_TEST
    )
    for module in ("ch2/cost_model.py", "ch7/bubble.py"):
        text = (ex / module).read_text()
        (ex / module).write_text(text.replace('"""Chapter', '"""Version B. Chapter', 1))
    collectives = (ex / "ch2" / "collectives.py").read_text()
    assert SIGNATURE_A in collectives
    (ex / "ch2" / "collectives.py").write_text(collectives.replace(SIGNATURE_A, SIGNATURE_B))
    (ex / "ch7" / "test_bubble.py").unlink()
    (ex / "ch7" / "stage_timer.py").write_text(
        "def stage_time(p: int) -> float:\n    raise NotImplementedError\n"
    )
    stubs = {
        p.relative_to(ex).as_posix(): p.read_text()
        for p in ex.glob("ch*/*.py")
        if not p.name.startswith("test_")
    }
    (ex / pristine.MANIFEST).write_text(pristine.manifest_text(stubs))
    return workspace_files.from_kit(into)


def test_an_upgrade_updates_the_kits_files_and_keeps_the_students_code(kit_root, tmp_path):
    ws = tmp_path / "ws"
    workspace.init(ws, workspace_files.from_kit(kit_root))  # 1-2. version A, then some work
    shutil.copyfile(
        kit_root / "solutions" / "ch2" / "cost_model.py", ws / "exercises" / "ch2" / "cost_model.py"
    )
    mine = ws / "exercises" / "ch2" / "collectives.py"
    mine.write_bytes(mine.read_bytes().replace(b"raise NotImplementedError", b"return tensor  # mine", 1))
    (ws / "exercises" / "ch2" / "notes.py").write_text("# my own helper\n")
    students = {
        rel: data
        for rel, data in _snapshot(ws).items()
        if rel in ("exercises/ch2/cost_model.py", "exercises/ch2/collectives.py", "exercises/ch2/notes.py")
    }
    files_b = _version_b(kit_root, tmp_path / "kit-b")  # 3. version B

    report = workspace.upgrade(ws, files_b)  # 4

    after = _snapshot(ws)  # 5. the student's code byte-identical, the kit's files version B's
    assert {rel: after[rel] for rel in students} == students
    assert sorted(report.kept) == ["exercises/ch2/collectives.py", "exercises/ch2/cost_model.py"]
    for rel in ("exercises/ch2/test_cost_model.py", "exercises/ch7/bubble.py", "exercises/pristine.json"):
        assert after[rel] == files_b[rel].read_bytes(), rel
    assert report.replaced == ["exercises/ch7/bubble.py"]  # untouched: it held nothing of the student's
    assert report.new_stubs == ["exercises/ch7/stage_timer.py"]
    assert report.removed == ["exercises/ch7/test_bubble.py"] and "exercises/ch7/test_bubble.py" not in after
    assert "exercises/ch2/test_cost_model.py" in report.written
    (note,) = report.notes  # the changed signature, with both; the new docstring is no news
    assert note == (
        "exercises/ch2/collectives.py: ring_shift: yours is "
        "`def ring_shift(tensor: torch.Tensor, group=None) -> torch.Tensor`, the new stub's is "
        "`def ring_shift(tensor: torch.Tensor, group=None, tag: int=0) -> torch.Tensor`"
    )
    marker = tomllib.loads((ws / WORKSPACE_MARKER).read_text())
    assert "exercises/ch7/test_bubble.py" not in marker["kit_files"]
    assert workspace.upgrade(ws, files_b).written == []  # once is enough

    run = subprocess.run(  # the new test runs, on the workspace's code
        [sys.executable, "-m", "pytest", "exercises/ch2/test_cost_model.py", "-k", "added_in_version_b"]
        + ["-q", "-p", "no:cacheprovider"],
        cwd=ws,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]


def test_signature_notes_name_what_changed():
    stub = "class Opt(Base):\n    def step(self, closure=None): ...\n\ndef f(a, b=1) -> int: ...\n"
    assert differences(stub, stub) == []
    mine = "class Opt(Base):\n    def step(self): ...\n\ndef g(): ...\n"
    assert differences(mine, stub) == [
        "Opt.step: yours is `def step(self)`, the new stub's is `def step(self, closure=None)`",
        "f is missing; the new stub declares `def f(a, b=1) -> int`",
    ]
    assert differences("def f(:\n", stub) == [
        "your file does not parse, so its signatures could not be compared with the new stub's"
    ]


def test_a_finished_module_draws_no_note_against_its_own_stub(kit_root):
    """Every reference solution keeps its stub's signatures: a student's finished work is no news."""
    for solution in sorted((kit_root / "solutions").glob("ch*/*.py")):
        stub = kit_root / "exercises" / solution.parent.name / solution.name
        assert differences(solution.read_text(), stub.read_text()) == [], solution


# --- the wheel, from a fresh virtual environment, as a student installs it -------------------------


_NOT_IN_THE_SOURCE = shutil.ignore_patterns(
    ".venv", ".git", ".cache", ".dtlab", "__pycache__", "*.egg-info", "build", "dist", "submissions"
)


@pytest.mark.slow
def test_the_wheel_installs_and_grades_a_workspace_from_a_fresh_environment(kit_root, tmp_path):
    """Build the sdist and, from it, the wheel; twine check; install the wheel alone in a new
    virtual environment outside the repository (its dependencies, torch and the rest, are this
    environment's, listed after its own site-packages); ``dtlab init``; every exercise not started;
    the solutions of chapter 7 copied in earn full marks."""
    source = tmp_path / "source"  # a copy: the build writes its egg-info beside the sources
    shutil.copytree(kit_root, source, ignore=_NOT_IN_THE_SOURCE)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source], tmp_path)
    (wheel,) = dist.glob("dtlab-*.whl")
    (sdist,) = dist.glob("dtlab-*.tar.gz")
    _run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist], tmp_path)
    _nothing_of_the_teachers(wheel, sdist, tmp_path / "unpacked")

    venv = tmp_path / "venv"  # outside the repository, without pip: the running one installs
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path)
    (site_packages,) = (venv / "lib").glob("python3*/site-packages")
    (site_packages / "dtlab-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    python, dtlab = venv / "bin" / "python", venv / "bin" / "dtlab"
    _run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index"]
        + ["--ignore-installed", wheel],
        tmp_path,
    )

    _run([dtlab, "init", "ws"], tmp_path)
    ws = tmp_path / "ws"
    where = _run([python, "-c", "import graders; print(graders.__file__)"], ws).stdout.strip()
    assert Path(where).is_relative_to(site_packages), where  # the wheel's graders, not the repo's
    load = "from graders.grading.reports import pages as p; e = p.environment(); "
    load += "print(*[e.get_template(n).name for n in e.list_templates()])"
    templates = sorted(t.name for t in (kit_root / "graders/grading/reports/templates").glob("*.html"))
    assert _run([python, "-c", load], ws).stdout.split() == templates  # the pages' templates are in it
    for stub in (kit_root / "exercises").glob("ch*/*.py"):
        assert (ws / "exercises" / stub.parent.name / stub.name).read_bytes() == stub.read_bytes()

    _run([dtlab, "progress"], ws)
    state = json.loads((ws / ".dtlab" / "progress.json").read_text())
    assert set(state["chapters"]) == set(CHAPTERS)
    marks = [mark for record in state["chapters"].values() for mark in record["exercises"].values()]
    assert marks and {mark["status"] for mark in marks} == {"not started"}
    assert "hint 1 of" in _run([dtlab, "hint", "ch2", "ring_shift"], ws).stdout
    assert (ws / ".dtlab" / "hints.json").is_file()

    for solution in (kit_root / "solutions" / "ch7").glob("*.py"):
        shutil.copyfile(solution, ws / "exercises" / "ch7" / solution.name)
    report = tmp_path / "ch7.json"
    argv = [
        python,
        "-m",
        "pytest",
        "exercises/ch7",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--dtlab-report={report}",
    ]
    _run([*argv, "--hypothesis-profile=ci"], ws)  # the kit's lighter profile: CI's time is counted
    book = json.loads(report.read_text())
    assert {row["exercise"] for row in book["exercises"]} == {e.id for e in CHAPTERS["ch7"].exercises}
    assert all(row["points"] == row["max_points"] > 0 for row in book["exercises"]), book["exercises"]


def _nothing_of_the_teachers(wheel: Path, sdist: Path, into: Path) -> None:
    """Neither archive holds a solution, a hidden grader or the teacher's fixtures, nor quotes an answer."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(into / "wheel")
    with tarfile.open(sdist) as tf:
        names += [name.split("/", 1)[-1] for name in tf.getnames()]
        tf.extractall(into / "sdist", filter="data")
    for teachers in ("solutions/", "hidden/", "fixtures/", "tests/", "bench/"):
        assert not [n for n in names if teachers in n], teachers
    packed = {n.split("graders/_workspace/", 1)[1] for n in names if "graders/_workspace/" in n}
    for chapter in CHAPTERS:
        assert f"exercises/{chapter}/README.md" in packed
        assert any(n.startswith(f"exercises/{chapter}/test_") for n in packed)
    assert {"README.md", "exercises/pristine.json"} <= packed
    assert release.find_leaks(into) == []
