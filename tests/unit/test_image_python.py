"""The Gradescope image's Python (``scripts/image_python.sh``): the image's own when the kit runs on
it, else one installed beside it. Offline: fake interpreters, ``apt-get``, ``apt-cache`` and
``add-apt-repository`` on a PATH of their own, each logging its calls."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.impl import KIT_ROOT

pytestmark = pytest.mark.graders  # the graders tier: like scripts/setup.sh's tests

SCRIPT = KIT_ROOT / "scripts" / "image_python.sh"
#: what the script may use besides the fakes
TOOLS = ("grep", "cat", "sed", "touch", "chmod", "basename")

FAKE_PYTHON = """#!{bash}
echo "$(basename "$0") $*" >> "{bin}/calls.log"
if [ "$1" = "-c" ]; then
  venv=0; [ -e "{bin}/venv-3.@MINOR@" ] && venv=1
  exec {python} -c "import sys; sys.version_info = (3, @MINOR@, 0, 'final', 0)
if not $venv: sys.modules['ensurepip'] = None"$'\\n'"$2"
fi
exit 1
"""

APT_GET = """#!{bash}
echo "apt-get $*" >> "{bin}/calls.log"
[ "$1" = install ] || exit 0
for package in "$@"; do
  minor=${{package#python3.}}
  case $package in
  python3.*-venv) touch "{bin}/venv-3.${{minor%-venv}}" ;;
  python3.*)
    sed "s/@MINOR@/$minor/g" "{bin}/python-template" >"{bin}/$package"
    chmod +x "{bin}/$package" ;;
  esac
done
"""

APT_CACHE = """#!{bash}
echo "apt-cache $*" >> "{bin}/calls.log"
if grep -qx "$2" "{bin}/apt-available"; then echo "  Candidate: 3.0-1"; else echo "  Candidate: (none)"; fi
"""

LOGGER = """#!{bash}
echo "$(basename "$0") $*" >> "{bin}/calls.log"
"""


def image(tmp_path: Path, python3: int, venv: bool = True, apt: tuple[str, ...] = (), os_id: str = "ubuntu"):
    """A fake image: ``python3`` is Python 3.``python3`` (with its venv module or not); apt offers
    the packages ``apt``; /etc/os-release says ``os_id``."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in TOOLS:
        (bin_ / tool).symlink_to(shutil.which(tool))
    fill = {"bash": shutil.which("bash"), "bin": bin_, "python": sys.executable}
    (bin_ / "python-template").write_text(FAKE_PYTHON.format(**fill))
    fakes = {"apt-get": APT_GET, "apt-cache": APT_CACHE, "add-apt-repository": LOGGER}
    for name, text in fakes.items():
        (bin_ / name).write_text(text.format(**fill))
        (bin_ / name).chmod(0o755)
    (bin_ / "python3").write_text(FAKE_PYTHON.format(**fill).replace("@MINOR@", str(python3)))
    (bin_ / "python3").chmod(0o755)
    if venv:
        (bin_ / f"venv-3.{python3}").touch()
    (bin_ / "apt-available").write_text("".join(f"{p}\n" for p in apt))
    (tmp_path / "os-release").write_text(f"NAME=Test\nID={os_id}\n")
    return bin_


def pick(tmp_path: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    env = {"PATH": str(tmp_path / "bin"), "OS_RELEASE": str(tmp_path / "os-release"), "HOME": str(tmp_path)}
    run = subprocess.run(
        [shutil.which("bash"), str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60
    )
    log = tmp_path / "bin" / "calls.log"
    return run, log.read_text().splitlines() if log.exists() else []


def apt_calls(calls: list[str]) -> list[str]:
    return [c for c in calls if c.startswith(("apt-get install", "add-apt-repository"))]


def test_the_images_own_python_in_range_is_taken_as_it_is(tmp_path):  # Ubuntu 24.04: 3.12
    bin_ = image(tmp_path, python3=12)
    run, calls = pick(tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == str(bin_ / "python3"), run.stderr
    assert apt_calls(calls) == []


def test_its_venv_module_is_added_when_debian_left_it_out(tmp_path):
    bin_ = image(tmp_path, python3=12, venv=False)
    run, calls = pick(tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == str(bin_ / "python3"), run.stderr
    assert apt_calls(calls) == ["apt-get install -y -q python3.12-venv"]


def test_an_image_with_python_3_10_gets_a_python_of_its_apt_sources(tmp_path):  # Ubuntu 22.04
    bin_ = image(tmp_path, python3=10, apt=("python3.11", "python3.11-venv"))
    run, calls = pick(tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == str(bin_ / "python3.11"), run.stderr
    assert apt_calls(calls) == ["apt-get install -y -q python3.11 python3.11-venv"]
    assert "installing Python 3.11 from the image's apt sources" in run.stderr
    assert not any(c.startswith("python3 ") and "venv" in c and "-m" in c for c in calls)


def test_without_one_in_apt_ubuntu_gets_the_deadsnakes_ppa(tmp_path):
    bin_ = image(tmp_path, python3=10)
    run, calls = pick(tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == str(bin_ / "python3.12"), run.stderr
    assert apt_calls(calls) == [
        "apt-get install -y -q software-properties-common",
        "add-apt-repository -y ppa:deadsnakes/ppa",
        "apt-get install -y -q python3.12 python3.12-venv",
    ]


def test_no_python_to_be_had_is_said_and_fails(tmp_path):
    image(tmp_path, python3=10, os_id="debian")
    run, calls = pick(tmp_path)
    assert run.returncode == 1 and run.stdout == ""
    assert "no Python 3.11 to 3.13 here, and none could be installed" in run.stderr
    assert apt_calls(calls) == []


def test_the_script_is_in_the_release_and_the_gradescope_setup_runs_it():
    from graders.authoring import release
    from graders.grading.lms import gradescope

    assert "scripts/image_python.sh" in release.INCLUDE
    assert 'PY=$(bash "$KIT/scripts/image_python.sh")' in gradescope.SETUP_SH
    assert "python3.11" not in gradescope.SETUP_SH  # no fixed interpreter: the image's if it can
    assert os.access(SCRIPT, os.R_OK)
