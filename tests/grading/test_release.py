"""The student release holds no answer and works on its own; the Gradescope zip grades like dtlab grade."""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest

from graders.authoring import release
from graders.authoring.stubs import solution_lines
from graders.catalog import CHAPTERS, EXERCISES

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


@pytest.fixture(scope="module")
def released(kit_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "dtlab"
    run = subprocess.run(
        [sys.executable, "-m", "graders", "release", str(out)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_no_solution_line_appears_anywhere_in_the_release(released, kit_root):
    texts = {}
    for path in released.rglob("*"):
        if path.is_file():
            texts[path] = path.read_text(encoding="utf-8", errors="replace")
    all_lines = {line.strip() for text in texts.values() for line in text.splitlines()}
    checked = 0
    for solution in sorted((kit_root / "solutions").rglob("*.py")):
        for line in solution_lines(solution.read_text()):
            if release.identifying(line):
                assert line not in all_lines, f"{solution.name}: {line!r} is in the release"
                checked += 1
            else:  # only short, generic statements are not identifying
                assert len(line) < release.MIN_IDENTIFYING, line
    assert checked > 50
    assert release.find_leaks(released) == []


def test_the_release_says_only_that_hidden_tests_exist(released, kit_root):
    texts = "\n".join(p.read_text(errors="replace") for p in released.rglob("*") if p.is_file())
    hidden = kit_root / "hidden"
    secrets = [
        m for path in hidden.rglob("test_*.py") for m in re.findall(r"def (test_\w+)", path.read_text())
    ]
    secrets += [path.name for path in (hidden / "fixtures").glob("*/*")]  # the samples they catch
    assert secrets and not [name for name in secrets if name in texts]
    docs = "\n".join(p.read_text() for p in released.rglob("*.md")).lower()
    assert not [word for word in ("bitwise", "30 000", "30000", "30_000") if word in docs]
    assert "hidden graders" in docs  # that they exist is no secret


def test_teacher_only_parts_are_left_out(released):
    present = {p.relative_to(released).as_posix() for p in released.rglob("*")}
    for gone in ("solutions", "hidden", "fixtures/mutants", "fixtures/submissions", "tests", ".ci"):
        assert gone not in present and not any(p.startswith(gone + "/") for p in present), gone
    for chapter in CHAPTERS:
        assert f"exercises/{chapter}/README.md" in present
        assert any(p.startswith(f"exercises/{chapter}/test_") for p in present)
    assert "graders/plugin/pytest_plugin.py" in present and "scripts/setup.sh" in present
    assert "scripts/install_torch.py" in present  # setup.sh's torch decision, and Gradescope's
    assert "conftest.py" in present  # pytest outside .venv says to use it


def _release_env(released):
    return {**os.environ, "PYTHONPATH": str(released), "PYTHONDONTWRITEBYTECODE": "1"}


def test_pytest_runs_in_the_release_and_every_exercise_is_not_started(released, tmp_path):
    env = _release_env(released)
    where = subprocess.run(
        [sys.executable, "-c", "import graders; print(graders.__file__)"],
        cwd=released,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip().startswith(str(released)), where.stdout  # the release's own graders
    report = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises/ch2", "-q", f"--dtlab-report={report}"],
        cwd=released,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    book = json.loads(report.read_text())
    assert {row["status"] for row in book["exercises"]} == {"not started"}
    assert {row["exercise"] for row in book["exercises"]} == {e for e in EXERCISES if e.startswith("ch2.")}
    assert "Traceback" not in run.stdout


def _readme_commands(released) -> list[str]:
    """The commands of the release README's ``bash`` blocks."""
    text = (released / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_release_readme_is_the_students_and_its_commands_run_in_the_release(released):
    """Set-up, then every command a student is told to run: they work in the release, with the
    release's own graders (the kit's interpreter stands for the .venv the set-up makes)."""
    readme = (released / "README.md").read_text()
    assert "Tiếng Việt" in readme and "dtlab hint" in readme and "dtlab watch" in readme
    for teacher_only in ("dtlab demo", "dtlab grade", "dtlab release", "scripts/test.sh", "solutions/"):
        assert teacher_only not in readme, teacher_only
    commands = _readme_commands(released)
    assert commands[:2] == ["bash scripts/setup.sh", "source .venv/bin/activate"]
    assert (released / "scripts" / "setup.sh").is_file()
    env = _release_env(released)
    for command in commands[2:]:
        program, *args = command.split()
        argv = [sys.executable, "-m", "pytest" if program == "pytest" else "graders", *args]
        run = subprocess.run(argv, cwd=released, env=env, capture_output=True, text=True, timeout=300)
        out = run.stdout + run.stderr
        assert run.returncode in (0, 1), f"{command}: {out[-2000:]}"
        assert "Traceback" not in out, f"{command}: {out[-2000:]}"
        assert "not started" in out or "hint 1 of" in out, f"{command}: {out[-2000:]}"


def test_a_refused_release_leaves_nothing_on_disk(tmp_path):
    """A kit whose public file quotes its answer: nothing is published, no staging is left."""
    kit = tmp_path / "kit"
    answer = "return sum(value * weight for value, weight in zip(values, weights))"
    (kit / "solutions" / "ch0").mkdir(parents=True)
    (kit / "solutions" / "ch0" / "a.py").write_text(
        f"def f(values, weights):\n    ### BEGIN SOLUTION\n    {answer}\n    ### END SOLUTION\n"
    )
    (kit / "exercises" / "ch0").mkdir(parents=True)
    (kit / "exercises" / "ch0" / "a.py").write_text(f'"""A hint that says too much:\n\n    {answer}\n"""\n')
    (kit / "graders" / "authoring").mkdir(parents=True)
    (kit / "graders" / "authoring" / "README.student.md").write_text("# release\n")
    out = tmp_path / "published" / "dtlab"
    published = release.publish(out, kit_root=kit)
    assert [leak.file for leak in published.leaks] == ["exercises/ch0/a.py"]
    assert not out.exists() and list((tmp_path / "published").iterdir()) == []
    (kit / "exercises" / "ch0" / "a.py").write_text("# TODO\n")
    assert release.publish(out, kit_root=kit).leaks == [] and (out / "exercises" / "ch0" / "a.py").is_file()


def test_a_release_is_never_written_over_an_existing_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    run = subprocess.run(
        [sys.executable, "-m", "graders", "release", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and (tmp_path / "keep.txt").read_text() == "mine"


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory):
    archive = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    run = subprocess.run(
        [sys.executable, "-m", "graders", "gradescope", "build", "--chapter", "ch2", "--out", str(archive)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return archive


def gradescope_image(archive, root):
    """``root`` laid out as Gradescope lays out ``/autograder`` (its documented layout).

    The zip's contents go to ``source/``; ``run_autograder`` is copied to the root and run from
    there. Its Python is a virtual environment where, as after a plain ``pip install ./kit``,
    the ``graders`` package sits in site-packages without any test file (torch, pytest and
    hypothesis come from this test's environment).
    """
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):
        os.chmod(root / "source" / name, 0o755)  # the zip records the mode; extractall drops it
    shutil.copyfile(root / "source" / "run_autograder", root / "run_autograder")
    os.chmod(root / "run_autograder", 0o755)
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True, timeout=120
    )
    (site_packages,) = (root / "venv" / "lib").glob("python3*/site-packages")
    shutil.copytree(root / "source" / "kit" / "graders", site_packages / "graders")
    here = sysconfig.get_paths()["purelib"]
    (site_packages / "test-environment.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    (root / "submission").mkdir()


def run_autograder(root):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTHON"))}
    env.update(DTLAB_AUTOGRADER_ROOT=str(root), DTLAB_GRADESCOPE_PROFILE="ci")
    run = subprocess.run(
        [str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads((root / "results" / "results.json").read_text()), run.stdout


def test_the_zip_has_gradescopes_layout_and_no_answer(autograder_zip, tmp_path):
    with zipfile.ZipFile(autograder_zip) as zf:
        names = zf.namelist()
        modes = {info.filename: info.external_attr >> 16 for info in zf.infolist()}
        zf.extractall(tmp_path)
    assert {"setup.sh", "run_autograder", "dtlab.json"} <= set(names)  # at the zip's root
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    assert any(n.startswith("kit/hidden/ch2/test_") for n in names)  # hidden graders travel with it
    assert not any(
        n.startswith(("kit/solutions", "kit/fixtures/submissions", "kit/fixtures/mutants")) for n in names
    )
    assert release.find_leaks(tmp_path) == []
    setup = (tmp_path / "setup.sh").read_text()
    assert subprocess.run(["bash", "-n", str(tmp_path / "setup.sh")]).returncode == 0
    assert 'pip" install --quiet -e "$ROOT/source/kit"' in setup  # in place: one copy of the graders


def test_the_zip_grades_a_submission_in_gradescopes_layout(autograder_zip, kit_root, tmp_path):
    root = tmp_path / "autograder"
    gradescope_image(autograder_zip, root)
    for path in (kit_root / "fixtures/submissions/ch2/dave").iterdir():
        (root / "submission" / path.name).write_bytes(path.read_bytes())
    results, stdout = run_autograder(root)
    assert results["score"] == 1.0, (
        stdout
    )  # Dave: ring_shift right, a banned all_reduce, the rest not started
    tests = {t["name"].split(" ·")[0]: t for t in results["tests"]}
    assert set(tests) == {f"{e.id} [{p}]" for e in CHAPTERS["ch2"].exercises for p in e.parts}
    for test in results["tests"]:
        assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}
    assert tests["ch2.ring_shift [result]"]["status"] == "passed"
    assert tests["ch2.ring_all_reduce [result]"]["score"] == 0
    assert "banned" in results["output"]


def test_the_autograder_says_what_failed_when_it_cannot_grade(autograder_zip, tmp_path):
    root = tmp_path / "autograder"
    gradescope_image(autograder_zip, root)
    shutil.rmtree(root / "source" / "kit" / "exercises" / "ch2")  # an incomplete zip
    results, _ = run_autograder(root)
    assert results["score"] == 0.0 and results["tests"] == []
    assert "no graders for ch2" in results["output"]


def test_every_link_of_the_releases_pages_leads_inside_the_release(released):
    """A page the release ships links only to what the release ships (its README, the chapters'
    READMEs and the students' docs, in both languages)."""
    broken = []
    for page in sorted(released.rglob("*.md")):
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            path = target.split("#", 1)[0]
            if not path or re.match(r"[a-z]+:", path):  # an anchor of the same page, or a URL
                continue
            if not (page.parent / path).exists():
                broken.append(f"{page.relative_to(released)} → {target}")
    assert not broken, broken
