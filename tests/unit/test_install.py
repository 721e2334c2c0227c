"""Installing the kit: ``scripts/setup.sh`` checks Python first, ``scripts/install_torch.py`` decides
which torch and refuses a CUDA build unless asked, and pytest on a Python without the kit says what
to do. All offline: fake interpreters, pip reports written by hand, a Python with the kit hidden."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.grading.lms import gradescope
from graders.impl import KIT_ROOT

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

spec = importlib.util.spec_from_file_location("install_torch", KIT_ROOT / "scripts" / "install_torch.py")
install_torch = sys.modules["install_torch"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(install_torch)


def fake_kit(tmp_path: Path) -> Path:
    kit = tmp_path / "kit"
    (kit / "scripts").mkdir(parents=True)
    for name in ("setup.sh", "install_torch.py"):
        shutil.copy2(KIT_ROOT / "scripts" / name, kit / "scripts" / name)
    (kit / "pyproject.toml").write_text((KIT_ROOT / "pyproject.toml").read_text())
    return kit


def shim(folder: Path, version: tuple[int, int]) -> Path:
    """An interpreter that reports ``version`` to ``-c`` code and fails at anything else (logged)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "python"
    prelude = f"import sys; sys.version_info = ({version[0]}, {version[1]}, 0, 'final', 0)"
    path.write_text(
        "#!/usr/bin/env bash\n"
        'echo "$*" >> "$(dirname "$0")/calls.log"\n'
        'if [ "$1" = "-c" ]; then\n'
        f'  exec {sys.executable} -c "{prelude}"$\'\\n\'"$2"\n'
        "fi\n"
        "exit 97\n"
    )
    path.chmod(0o755)
    return path


def setup(kit: Path, python: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTHON", "VIRTUAL_ENV"))}
    environ.update(env, PYTHON=python)
    argv = ["bash", str(kit / "scripts" / "setup.sh"), *args]
    return subprocess.run(argv, env=environ, capture_output=True, text=True, timeout=60)


def test_setup_stops_on_python_3_10_before_creating_anything(tmp_path):
    kit = fake_kit(tmp_path)
    python = shim(tmp_path / "bin", (3, 10))
    run = setup(kit, str(python))
    assert run.returncode == 2, run.stdout + run.stderr
    assert "is Python 3.10; the kit needs Python 3.11, 3.12 or 3.13" in run.stderr
    assert "Nothing was installed" in run.stderr
    assert not (kit / ".venv").exists()
    calls = (tmp_path / "bin" / "calls.log").read_text().splitlines()
    assert calls and all(c.startswith("-c ") for c in calls), calls  # never -m venv, never -m pip


def test_setup_names_a_python_it_cannot_run(tmp_path):
    kit = fake_kit(tmp_path)
    run = setup(kit, str(tmp_path / "no-such-python"))
    assert run.returncode == 2 and "cannot run PYTHON" in run.stderr
    assert not (kit / ".venv").exists()


def test_setup_refuses_an_old_venv_left_behind(tmp_path):
    kit = fake_kit(tmp_path)
    shim(kit / ".venv" / "bin", (3, 10))
    run = setup(kit, sys.executable)  # a good PYTHON, but .venv holds a 3.10
    assert run.returncode == 2, run.stdout + run.stderr
    assert "existing .venv" in run.stderr and "Python 3.10" in run.stderr
    calls = (kit / ".venv" / "bin" / "calls.log").read_text().splitlines()
    assert all(c.startswith("-c ") for c in calls), calls


@pytest.mark.skipif(not Path("/root/.pyenv/versions/3.10.13/bin/python3.10").exists(), reason="no 3.10")
def test_setup_stops_on_a_real_python_3_10(tmp_path):
    kit = fake_kit(tmp_path)
    run = setup(kit, "/root/.pyenv/versions/3.10.13/bin/python3.10")
    assert run.returncode == 2 and "is Python 3.10" in run.stderr
    assert not (kit / ".venv").exists()


def item(name, version, url):
    return {"metadata": {"name": name, "version": version}, "download_info": {"url": url}}


CPU_REPORT = {
    "version": "1",
    "install": [
        item("torch", "2.13.0+cpu", "file:///opt/wheels/torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl"),
        item("sympy", "1.14.0", "https://files.example/sympy-1.14.0-py3-none-any.whl"),
    ],
}
CUDA_REPORT = {
    "version": "1",
    "install": [
        item("torch", "2.13.0", "https://files.example/torch-2.13.0-cp312-cp312-manylinux_2_28_x86_64.whl"),
        item("nvidia-cublas", "13.0.0", "https://files.example/nvidia_cublas-13.0.0-py3-none-any.whl"),
        item("nvidia-cudnn-cu13", "9.1.0", "https://files.example/nvidia_cudnn_cu13-9.1.0-py3-none-any.whl"),
        item("sympy", "1.14.0", "https://files.example/sympy-1.14.0-py3-none-any.whl"),
    ],
}
SIZES = {"torch": 526_600_000, "nvidia_cublas": 423_100_000, "nvidia_cudnn": 366_200_000, "sympy": 6_300_000}


def fake_size(url):
    return next((size for key, size in SIZES.items() if key in url.rsplit("/", 1)[-1]), None)


def test_a_cpu_build_is_recognised_from_pips_report():
    plan = install_torch.plan_from_report(CPU_REPORT, fake_size)
    assert plan.cpu and plan.version == "2.13.0+cpu" and plan.gpu_packages == []
    assert plan.size == 526_600_000 + 6_300_000
    assert "CPU build" in plan.describe() and "532.9 MB" in plan.describe()


def test_a_cuda_build_is_recognised_by_its_nvidia_packages_or_its_local_version():
    plan = install_torch.plan_from_report(CUDA_REPORT, fake_size)
    assert not plan.cpu and plan.gpu_packages == ["nvidia-cublas", "nvidia-cudnn-cu13"]
    assert plan.size == sum(SIZES.values())
    tagged = {"install": [item("torch", "2.13.0+cu130", "https://files.example/torch.whl")]}
    assert not install_torch.plan_from_report(tagged).cpu
    assert install_torch.plan_from_report(tagged).size is None  # size unknown, said so
    assert "size unknown" in install_torch.plan_from_report(tagged).describe()


def test_the_cuda_gate_says_what_how_big_and_how_to_proceed():
    plan = install_torch.plan_from_report(CUDA_REPORT, fake_size)
    message = install_torch.gate_message(plan, ["pip's configured indexes (CUDA build)"])
    assert "only a CUDA build of torch 2.13.0" in message
    assert "1.3 GB to download" in message and "torch 526.6 MB" in message
    assert "Nothing was installed" in message
    for way in (
        "PYTHON=python3.11",
        "DTLAB_TORCH_INDEX=",
        "DTLAB_TORCH_FIND_LINKS=",
        "DTLAB_ALLOW_CUDA_TORCH=1",
    ):
        assert way in message


def test_install_stops_before_a_cuda_build_unless_allowed(monkeypatch, capsys):
    plan = install_torch.plan_from_report(CUDA_REPORT, fake_size)
    installed = []
    monkeypatch.setattr(install_torch, "installed_torch", lambda: None)
    monkeypatch.setattr(install_torch, "resolve", lambda source: (plan, ""))
    monkeypatch.setattr(install_torch, "pip_install", lambda plan, source: installed.append(source) or 0)
    assert install_torch.install({}) == 3 and installed == []
    assert "DTLAB_ALLOW_CUDA_TORCH=1" in capsys.readouterr().err
    assert install_torch.install({"DTLAB_ALLOW_CUDA_TORCH": "0"}) == 3 and installed == []
    assert install_torch.install({"DTLAB_ALLOW_CUDA_TORCH": "1"}) == 0 and len(installed) == 1


def test_install_takes_the_first_source_with_a_cpu_build(monkeypatch):
    plans = {
        "pip's configured indexes": install_torch.plan_from_report(CUDA_REPORT, fake_size),
        install_torch.PYTORCH_CPU_INDEX: install_torch.plan_from_report(CPU_REPORT, fake_size),
    }
    installed = []
    monkeypatch.setattr(install_torch, "installed_torch", lambda: None)
    monkeypatch.setattr(install_torch, "resolve", lambda source: (plans[source.label], ""))
    monkeypatch.setattr(
        install_torch, "pip_install", lambda plan, source: installed.append((plan, source)) or 0
    )
    assert install_torch.install({}) == 0
    ((plan, source),) = installed
    assert plan.cpu and source.flags == ["--index-url", install_torch.PYTORCH_CPU_INDEX]


def test_configured_sources_are_the_only_ones_tried():
    assert [s.flags for s in install_torch.sources({})] == [
        [],
        ["--index-url", install_torch.PYTORCH_CPU_INDEX],
    ]
    (only,) = install_torch.sources(
        {"DTLAB_TORCH_INDEX": "https://mirror/cpu", "DTLAB_TORCH_FIND_LINKS": "/w"}
    )
    assert only.flags == ["--index-url", "https://mirror/cpu", "--find-links", "/w"]


def test_verification_wants_a_torch_of_the_range_and_the_cpu_build():
    assert install_torch.check_torch("2.13.0+cpu", None, allowed_cuda=False) is None
    assert install_torch.check_torch("2.13.0", None, allowed_cuda=False) is None  # macOS: CPU, no tag
    assert "CUDA" in install_torch.check_torch("2.13.0", "13.0", allowed_cuda=False)
    assert install_torch.check_torch("2.13.0+cu130", "13.0", allowed_cuda=True) is None
    for inside in ("2.13.1+cpu", "2.14.1", "2.15.0+cpu", "2.15.0a0+git1234abc"):
        assert install_torch.check_torch(inside, None, allowed_cuda=False) is None, inside
    for outside in ("2.12.1+cpu", "2.16.0", "3.0.0", "2.9.1", "2.1x"):
        assert "the kit runs on torch >=2.13, <2.16" in install_torch.check_torch(outside, None, True)


def test_the_range_is_said_the_same_everywhere():
    """pyproject.toml, scripts/install_torch.py, scripts/setup.sh and the compatibility module agree."""
    import tomllib

    from graders.infra import torch_compat

    project = tomllib.loads((KIT_ROOT / "pyproject.toml").read_text())["project"]
    assert "torch>=2.13,<2.16" in project["dependencies"]
    assert install_torch.SUPPORTED == ((2, 13), (2, 16)) == torch_compat.SUPPORTED
    assert project["requires-python"] == ">=3.11,<3.14"
    minors = sorted(c.rsplit(".", 1)[1] for c in project["classifiers"] if c.count(".") == 1 and "3." in c)
    assert minors == ["11", "12", "13"]
    assert "(3, 11) <= sys.version_info[:2] < (3, 14)" in (KIT_ROOT / "scripts" / "setup.sh").read_text()
    assert install_torch.in_range(install_torch.VERSION)


def kept(monkeypatch, have, keep=False):
    """What ``install`` does with ``have`` (version, cuda) already importable: (exit, installed)."""
    installed = []
    monkeypatch.setattr(install_torch, "installed_torch", lambda: have)
    plan = install_torch.plan_from_report(CPU_REPORT, fake_size)
    monkeypatch.setattr(install_torch, "resolve", lambda source: (plan, ""))
    monkeypatch.setattr(install_torch, "pip_install", lambda plan, source: installed.append(plan) or 0)
    return install_torch.install({}, keep=keep), installed


def test_a_torch_of_the_range_already_there_is_kept(monkeypatch, capsys):
    assert kept(monkeypatch, ("2.15.0+cpu", None)) == (0, [])
    assert "torch 2.15.0+cpu already installed" in capsys.readouterr().out
    # the environment's own CUDA build: kept with --keep, replaced by the CPU build without
    assert kept(monkeypatch, ("2.14.1+cu130", "13.0"), keep=True) == (0, [])
    code, installed = kept(monkeypatch, ("2.14.1+cu130", "13.0"))
    assert code == 0 and [p.version for p in installed] == ["2.13.0+cpu"]


def test_keep_refuses_a_torch_outside_the_range_and_installs_nothing(monkeypatch, capsys):
    assert kept(monkeypatch, ("2.12.1", None), keep=True) == (3, [])
    err = capsys.readouterr().err
    assert "--keep-torch, but torch 2.12.1 is installed; the kit runs on torch >=2.13, <2.16" in err
    assert "Nothing was installed" in err
    # without keep, the kit's own .venv gets the kit's torch
    code, installed = kept(monkeypatch, ("2.16.0", None))
    assert code == 0 and [p.version for p in installed] == ["2.13.0+cpu"]


def test_keep_without_a_torch_installs_the_kits_own(monkeypatch, capsys):
    code, installed = kept(monkeypatch, None, keep=True)
    assert code == 0 and [p.version for p in installed] == ["2.13.0+cpu"]
    assert "no torch imports here" in capsys.readouterr().out


def test_setup_stops_on_python_3_14(tmp_path):
    kit = fake_kit(tmp_path)
    run = setup(kit, str(shim(tmp_path / "bin", (3, 14))))
    assert run.returncode == 2 and "is Python 3.14; the kit needs Python 3.11, 3.12 or 3.13" in run.stderr
    assert not (kit / ".venv").exists()


@pytest.mark.parametrize("minor", [11, 12, 13])
def test_setup_takes_python_3_11_to_3_13(tmp_path, minor):
    """The shim passes the version check, then fails at ``-m venv`` (exit 97): the call is logged."""
    kit = fake_kit(tmp_path)
    run = setup(kit, str(shim(tmp_path / "bin", (3, minor))))
    assert f"is Python 3.{minor}" in run.stdout and run.returncode == 97, run.stdout + run.stderr
    assert "-m venv .venv" in (tmp_path / "bin" / "calls.log").read_text()


def test_setup_keep_makes_a_venv_that_sees_the_pythons_torch(tmp_path):
    kit = fake_kit(tmp_path)
    run = setup(kit, str(shim(tmp_path / "bin", (3, 12))), "--keep-torch")
    assert run.returncode == 97, run.stdout + run.stderr
    assert "-m venv --system-site-packages .venv" in (tmp_path / "bin" / "calls.log").read_text()


def test_setup_refuses_an_argument_it_does_not_know(tmp_path):
    kit = fake_kit(tmp_path)
    run = setup(kit, str(shim(tmp_path / "bin", (3, 12))), "--torch=2.15")
    assert run.returncode == 2 and "usage: bash scripts/setup.sh [--keep-torch]" in run.stderr
    assert not (kit / ".venv").exists() and not (tmp_path / "bin" / "calls.log").exists()


def test_verify_and_install_take_keep_from_the_command_line():
    run = subprocess.run(
        [sys.executable, str(KIT_ROOT / "scripts" / "install_torch.py"), "verify", "--bogus"],
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0 and "install|verify [--keep]" in run.stderr
    run = subprocess.run(
        [sys.executable, str(KIT_ROOT / "scripts" / "install_torch.py"), "verify", "--keep"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and "torch 2.1" in run.stdout, run.stdout + run.stderr


@pytest.mark.skipif(not shutil.which("shellcheck"), reason="no shellcheck here")
def test_the_install_scripts_pass_shellcheck(tmp_path):
    (tmp_path / "setup.sh").write_text(gradescope.SETUP_SH)
    scripts = [KIT_ROOT / "scripts" / n for n in ("setup.sh", "image_python.sh")]
    scripts += [KIT_ROOT / "bench" / "compat.sh", tmp_path / "setup.sh"]
    run = subprocess.run(["shellcheck", *map(str, scripts)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout


def _verify(allow_cuda: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(KIT_ROOT / "scripts" / "install_torch.py"), "verify"],
        capture_output=True,
        text=True,
        env={**os.environ, "DTLAB_ALLOW_CUDA_TORCH": allow_cuda},
        timeout=120,
    )


def test_verification_of_this_environment():
    """The CPU build passes as it is; a CUDA build (a Python with no CPU wheel here, installed with
    DTLAB_ALLOW_CUDA_TORCH=1) is refused unless it was allowed."""
    import torch

    if torch.version.cuda is None:
        run = _verify("")
        assert run.returncode == 0 and "(CPU build)" in run.stdout, run.stdout + run.stderr
        return
    refused, allowed = _verify(""), _verify("1")
    assert refused.returncode != 0 and "is a CUDA/ROCm build" in refused.stdout + refused.stderr
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_gradescope_setup_uses_the_same_torch_decision():
    assert 'install_torch.py" install' in gradescope.SETUP_SH
    assert 'install_torch.py" verify' in gradescope.SETUP_SH
    # the requirement lives in scripts/install_torch.py only (setup.sh pins the torch it finds)
    assert not re.search(r"torch\W*[=<>~]+\W*\d", gradescope.SETUP_SH)
    assert not re.search(r"torch\W*[=<>~]+\W*\d", (KIT_ROOT / "scripts" / "setup.sh").read_text())


def pytest_without_the_kit(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``pytest`` on a Python where ``graders`` and torch do not import (as on a system Python)."""
    code = (
        "import sys; sys.modules['graders'] = sys.modules['torch'] = None; import pytest; "
        f"sys.argv = ['pytest', *{list(args)!r}]; sys.exit(pytest.main(sys.argv[1:]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTLAB_", "PYTHON"))}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # a system Python has no dtlab plugin registered
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_pytest_without_the_kit_says_to_use_the_venv(tmp_path):
    shutil.copy2(KIT_ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (tmp_path / "exercises" / "ch2").mkdir(parents=True)
    (tmp_path / "exercises" / "ch2" / "test_x.py").write_text("import graders\n")
    run = pytest_without_the_kit(tmp_path, "exercises/ch2", "-k", "ring")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "cannot import the kit" in run.stderr and "Traceback" not in run.stderr + run.stdout
    assert "bash scripts/setup.sh && .venv/bin/pytest exercises/ch2 -k ring" in run.stderr
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    run = pytest_without_the_kit(tmp_path, "exercises/ch2")
    assert "source .venv/bin/activate && pytest exercises/ch2" in run.stderr
    assert ".venv/bin/pytest exercises/ch2" in run.stderr
    run = pytest_without_the_kit(tmp_path / "exercises", "ch2")  # paths relative to where pytest runs
    assert "source ../.venv/bin/activate && pytest ch2" in run.stderr


def test_an_unreachable_index_is_named_as_such_before_pip_is_asked():
    refused = install_torch.Source(["--index-url", "http://127.0.0.1:9/simple"], "a dead index")
    plan, why = install_torch.resolve(refused)  # port 9 on loopback: nothing listens, refused at once
    assert plan is None and why.startswith("http://127.0.0.1:9/simple is unreachable")
    assert install_torch.index_unreachable(install_torch.Source(["--index-url", "file:///opt/x"], "")) == ""
    assert install_torch.index_unreachable(install_torch.Source([], "pip's configured indexes")) == ""


spec = importlib.util.spec_from_file_location(
    "install_requirements", KIT_ROOT / "scripts" / "install_requirements.py"
)
install_requirements = sys.modules["install_requirements"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(install_requirements)

PIP_CONFIG = """\
:env:.find-links='/opt/wheels'
:env:.disable-pip-version-check='1'
global.cert='/etc/ssl/certs/ca-certificates.crt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.find-links='/srv/old-wheels'
global.index-url='https://global.example/simple'
user.index-url='https://user.example/simple'
"""


def test_uv_looks_where_pip_is_configured_to_look():
    settings = install_requirements.pip_settings(PIP_CONFIG)
    assert settings["find-links"] == "/opt/wheels"  # the environment beats pip's files
    assert settings["index-url"] == "https://user.example/simple"  # the user's file beats the global one
    assert settings["cert"] == "/etc/ssl/certs/ca-certificates.crt"
    flags = install_requirements.uv_flags(settings)
    assert flags[:2] == ["--index-strategy", "unsafe-best-match"]  # the best version from any index, as pip
    pairs = list(zip(flags[2::2], flags[3::2], strict=True))
    assert pairs == [
        ("--index-url", "https://user.example/simple"),
        ("--extra-index-url", "file:///opt/pypi/simple"),
        ("--extra-index-url", "file:///opt/pypi-more/simple"),
        ("--find-links", "/opt/wheels"),
    ]
    assert install_requirements.uv_flags({}) == ["--index-strategy", "unsafe-best-match"]


def test_pip_installs_where_uv_fails_or_is_refused(monkeypatch):
    ran = []
    monkeypatch.setattr(install_requirements, "install_with_uv", lambda args: ran.append("uv") or False)
    monkeypatch.setattr(
        install_requirements.subprocess,
        "run",
        lambda argv, **kw: ran.append(argv[4:]) or subprocess.CompletedProcess(argv, 0),
    )
    assert install_requirements.main(["-e", "."]) == 0
    assert ran == ["uv", ["install", "-e", "."]]
    ran.clear()
    monkeypatch.setenv("DTLAB_INSTALLER", "pip")
    assert install_requirements.main(["-e", "."]) == 0
    assert ran == [["install", "-e", "."]]
