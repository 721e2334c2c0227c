"""The one place that decides which torch the kit installs, and checks what was installed.

Run with the virtual environment's Python, before torch is there (standard library only), by
``scripts/setup.sh`` and by the Gradescope image's ``setup.sh``:

    python scripts/install_torch.py install [--keep]  # keep a torch of the range, else resolve
                                                      # (pip dry run), say what and how big,
                                                      # install torch 2.13.0
    python scripts/install_torch.py verify [--keep]   # a torch of the range, the CPU build unless
                                                      # CUDA was allowed or --keep

The kit runs on torch >= 2.13, < 2.16 (:data:`SUPPORTED`; each series proven by
``bench/compat.sh``). What a new environment gets is one release of it, :data:`VERSION`, the CPU
build CI and the course machines use. ``--keep`` (``bash scripts/setup.sh --keep-torch``) takes
the torch the environment already has (setup.sh then makes ``.venv`` with
``--system-site-packages``), CPU or CUDA build, if it is in the range; it refuses one outside the
range and installs nothing then.

Where torch comes from: ``DTLAB_TORCH_INDEX`` (an index URL, pip's ``--index-url``) and/or
``DTLAB_TORCH_FIND_LINKS`` (a folder or page of wheels, pip's ``--find-links``) when set; else
pip's own configuration, then PyTorch's CPU index. The first source that resolves to a CPU build
wins. When every source resolves to a CUDA (or ROCm) build, nothing is installed unless
``DTLAB_ALLOW_CUDA_TORCH=1``: the CUDA build with its nvidia packages is a 4.9 GB environment
instead of 1.1 GB, and the kit never uses a GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass, field

#: the torch series the kit runs on: >= the first, < the second (pyproject.toml says the same)
SUPPORTED = ((2, 13), (2, 16))
RANGE = f">={SUPPORTED[0][0]}.{SUPPORTED[0][1]}, <{SUPPORTED[1][0]}.{SUPPORTED[1][1]}"
#: the release a new environment gets (its CPU build)
VERSION = "2.13.0"
REQUIREMENT = f"torch=={VERSION}"
PYTORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]


def step(text: str) -> None:
    print(f"==> {text}", flush=True)


@dataclass
class Source:
    """Where pip looks for torch: extra pip flags, and how to name them to a person."""

    flags: list[str]
    label: str
    probe_flags: list[str] = field(default_factory=list)  # a quick probe for a fallback source


def sources(env=os.environ) -> list[Source]:
    """The sources to try, in order: the configured one only, or pip's default then PyTorch's CPU index."""
    flags, names = [], []
    if env.get("DTLAB_TORCH_INDEX"):
        flags += ["--index-url", env["DTLAB_TORCH_INDEX"]]
        names.append(f"DTLAB_TORCH_INDEX={env['DTLAB_TORCH_INDEX']}")
    if env.get("DTLAB_TORCH_FIND_LINKS"):
        flags += ["--find-links", env["DTLAB_TORCH_FIND_LINKS"]]
        names.append(f"DTLAB_TORCH_FIND_LINKS={env['DTLAB_TORCH_FIND_LINKS']}")
    if flags:
        return [Source(flags, " and ".join(names))]
    return [
        Source([], "pip's configured indexes"),
        Source(["--index-url", PYTORCH_CPU_INDEX], PYTORCH_CPU_INDEX, ["--timeout", "8", "--retries", "0"]),
    ]


def allow_cuda(env=os.environ) -> bool:
    return env.get("DTLAB_ALLOW_CUDA_TORCH", "") not in ("", "0")


def in_range(version: str) -> bool:
    """Whether a torch version (``2.15.0+cpu``, ``2.14.0a0+git…``) is of a supported series."""
    try:
        series = tuple(int(part) for part in version.partition("+")[0].split(".")[:2])
    except ValueError:
        return False
    return SUPPORTED[0] <= series < SUPPORTED[1]


@dataclass
class Plan:
    """What pip would install for torch from one source (from ``pip install --dry-run --report``)."""

    version: str
    url: str
    packages: list[tuple[str, str, int | None]]  # name, url, bytes (None: unknown)
    gpu_packages: list[str]

    @property
    def cpu(self) -> bool:
        local = self.version.partition("+")[2]
        return not self.gpu_packages and not local.startswith(("cu", "rocm"))

    @property
    def size(self) -> int | None:
        sizes = [s for _, _, s in self.packages]
        return None if any(s is None for s in sizes) else sum(sizes)

    def describe(self) -> str:
        build = "CPU build" if self.cpu else "CUDA build"
        total = human(self.size) if self.size is not None else "size unknown"
        extra = f", with {len(self.gpu_packages)} GPU packages" if self.gpu_packages else ""
        return f"torch {self.version} ({build}{extra}): {len(self.packages)} packages, {total} to download"


def plan_from_report(report: dict, size_of=lambda url: None) -> Plan:
    """Read pip's installation report (format version 1)."""
    packages, torch = [], None
    for item in report.get("install", []):
        name = item["metadata"]["name"]
        url = item.get("download_info", {}).get("url", "")
        packages.append((name, url, size_of(url)))
        if name.lower() == "torch":
            torch = item
    if torch is None:
        raise ValueError("pip's report does not install torch")
    gpu = [n for n, _, _ in packages if n.lower().startswith(("nvidia-", "pytorch-triton-rocm"))]
    return Plan(torch["metadata"]["version"], torch["download_info"]["url"], packages, gpu)


def download_size(url: str, timeout: float = 10) -> int | None:
    """The bytes behind a wheel's URL: the file's size, or the server's Content-Length; None if unknown."""
    try:
        if url.startswith("file://"):
            return os.path.getsize(urllib.request.url2pathname(url[len("file://") :]))
        if url.startswith(("http://", "https://")):
            request = urllib.request.Request(url, method="HEAD")
            with urllib.request.urlopen(request, timeout=timeout) as response:
                length = response.headers.get("Content-Length")
                return int(length) if length else None
    except (OSError, ValueError):
        return None
    return None


def human(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def resolve(source: Source) -> tuple[Plan | None, str]:
    """What pip would install from ``source``, without installing anything (or why it cannot say)."""
    unreachable = index_unreachable(source)
    if unreachable:
        return None, unreachable
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        argv = [*PIP, "install", "--dry-run", "--ignore-installed", "--quiet", "--report", report_path]
        run = subprocess.run(
            [*argv, *source.probe_flags, *source.flags, REQUIREMENT], capture_output=True, text=True
        )
        if run.returncode != 0 or not os.path.exists(report_path):
            lines = [line for line in (run.stderr + run.stdout).splitlines() if line.startswith("ERROR:")]
            lines = [line for line in lines if "ResolutionImpossible" not in line]
            return None, (lines[0] if lines else f"pip exited with {run.returncode}")
        with open(report_path) as f:
            report = json.load(f)
    return plan_from_report(report, download_size), ""


def index_unreachable(source: Source, timeout: float = 8) -> str:
    """Why the index ``source`` names cannot be reached (an empty string when it can, or names none)."""
    if "--index-url" not in source.flags:
        return ""
    url = source.flags[source.flags.index("--index-url") + 1]
    if not url.startswith(("http://", "https://")):
        return ""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/torch/", timeout=timeout):
            return ""
    except OSError as exc:  # URLError, HTTPError and timeouts are OSErrors
        return f"{url} is unreachable ({getattr(exc, 'reason', exc)})"


def gate_message(plan: Plan, tried: list[str]) -> str:
    """Why setup stops before installing a CUDA build, and what to do instead."""
    big = sorted((p for p in plan.packages if p[2]), key=lambda p: -p[2])[:4]
    biggest = ", ".join(f"{name} {human(size)}" for name, _, size in big)
    py = f"Python {sys.version_info[0]}.{sys.version_info[1]}"
    return "\n".join(
        [
            f"dtlab setup: only a CUDA build of torch {VERSION} is available for {py} here.",
            f"  pip would install {plan.describe()}" + (f" (largest: {biggest})" if biggest else "") + ".",
            "  The kit runs on CPUs only; the CPU build makes a ~1.1 GB .venv, the CUDA build ~4.9 GB.",
            "  Tried: " + "; ".join(tried) + ".",
            "  Nothing was installed. Instead, either:",
            "    - use the course's Python: PYTHON=python3.11 bash scripts/setup.sh",
            f"    - point at CPU wheels: DTLAB_TORCH_INDEX={PYTORCH_CPU_INDEX} (or a mirror of it), or "
            "DTLAB_TORCH_FIND_LINKS=/folder/of/wheels",
            "    - or accept the CUDA build: DTLAB_ALLOW_CUDA_TORCH=1 bash scripts/setup.sh",
        ]
    )


def installed_torch() -> tuple[str, str | None] | None:
    """(version, torch.version.cuda) of the torch this Python imports, without importing it here."""
    code = "import torch; print(torch.__version__); print(torch.version.cuda or torch.version.hip or '')"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if run.returncode != 0:
        return None
    version, _, gpu = run.stdout.strip().partition("\n")
    return version, (gpu.strip() or None)


def check_torch(version: str, cuda: str | None, allowed_cuda: bool) -> str | None:
    """What is wrong with the installed torch, or None."""
    if not in_range(version):
        return f"torch {version} is installed; the kit runs on torch {RANGE}"
    if cuda is not None and not allowed_cuda:
        return (
            f"torch {version} is a CUDA/ROCm build (torch.version.cuda = {cuda!r}); the kit wants the CPU "
            "build. Remove .venv and run setup again, or set DTLAB_ALLOW_CUDA_TORCH=1 to keep it"
        )
    return None


def install(env=os.environ, keep: bool = False) -> int:
    """``keep``: the environment's own torch, whichever build, if it is in the range."""
    have = installed_torch()
    if have and check_torch(*have, allow_cuda(env) or keep) is None:
        step(f"torch {have[0]} already installed (the kit runs on torch {RANGE}): kept")
        return 0
    if have and keep:
        print(
            f"dtlab setup: --keep-torch, but {check_torch(*have, True)}.\n"
            f"  Nothing was installed. Install a torch of that range for {sys.executable}, or run "
            "setup without --keep-torch to install the kit's own (remove .venv first).",
            file=sys.stderr,
        )
        return 3
    if keep:
        step(f"--keep-torch, but no torch imports here: installing the kit's own, {REQUIREMENT}")
    gpu_plan, tried = None, []
    for source in sources(env):
        step(f"torch: asking pip what {REQUIREMENT} resolves to from {source.label} (dry run, no download)")
        plan, why = resolve(source)
        if plan is None:
            print(f"    no answer from {source.label}: {why}", flush=True)
            tried.append(f"{source.label} (no answer)")
            continue
        print(f"    {plan.describe()}", flush=True)
        tried.append(f"{source.label} ({'CPU' if plan.cpu else 'CUDA'} build)")
        if plan.cpu:
            return pip_install(plan, source)
        gpu_plan = gpu_plan or (plan, source)
    if gpu_plan is None:
        tried_text = "; ".join(tried) or "nothing"
        print(f"dtlab setup: pip found no {REQUIREMENT} here; tried: {tried_text}", file=sys.stderr)
        return 3
    plan, source = gpu_plan
    if not allow_cuda(env):
        print(gate_message(plan, tried), file=sys.stderr)
        return 3
    step("DTLAB_ALLOW_CUDA_TORCH is set: installing the CUDA build")
    return pip_install(plan, source)


def _installer() -> list[str]:
    """``pip install``, or uv with pip's configuration where the kit's installer lies beside this
    script (``scripts/install_requirements.py``; a copy of this script alone uses pip)."""
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "install_requirements.py")
    return [sys.executable, beside] if os.path.isfile(beside) else [*PIP, "install"]


def pip_install(plan: Plan, source: Source) -> int:
    """Install torch; pip's own lines go to ``$DTLAB_PIP_LOG`` when it is set (the setup script
    keeps them in a file and shows its steps), and the log's last lines are shown if pip fails."""
    size = human(plan.size) if plan.size else "size unknown"
    log_path = os.environ.get("DTLAB_PIP_LOG")
    where = f"pip's log: {log_path}" if log_path else "pip's log follows"
    step(f"installing torch {plan.version} ({size} to download; {where})")
    argv = [*_installer(), *source.flags, f"torch=={plan.version}"]
    if not log_path:
        return subprocess.run(argv).returncode
    with open(log_path, "a", encoding="utf-8") as log:
        code = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT).returncode
    if code:
        with open(log_path, encoding="utf-8", errors="replace") as log:
            tail = log.readlines()[-30:]
        print(f"dtlab setup: pip failed (exit {code}); the last lines of {log_path}:", file=sys.stderr)
        print("".join(tail), end="", file=sys.stderr)
    return code


def verify(env=os.environ, keep: bool = False) -> int:
    have = installed_torch()
    if have is None:
        print(f"dtlab setup: torch does not import in {sys.executable}", file=sys.stderr)
        return 4
    problem = check_torch(*have, allow_cuda(env) or keep)
    if problem:
        print(f"dtlab setup: {problem}", file=sys.stderr)
        return 4
    build = "CPU build" if have[1] is None else f"GPU build, {have[1]}"
    step(f"torch {have[0]} ({build}) on Python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    command, *flags = sys.argv[1:] or [""]
    if command not in ("install", "verify") or set(flags) - {"--keep"}:
        sys.exit(f"usage: {sys.argv[0]} install|verify [--keep]")
    keep_torch = "--keep" in flags
    sys.exit(install(keep=keep_torch) if command == "install" else verify(keep=keep_torch))
