"""Every environment variable the kit reads, in one place, read when asked (never at import).

Each variable is declared once in :data:`VARIABLES` with its default and its effect; the table in
``docs/environment.md`` is checked against this list (``tests/unit/test_config.py``). Python code
reads them only through the accessors below, so a value set after import (by a test, a notebook cell, the
Gradescope script) still takes effect. Variables marked ``shell`` are read by the kit's shell
scripts (``scripts/setup.sh``, the Gradescope ``setup.sh`` / ``run_autograder``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: one task's deadline in the worker world (s) when nothing else says one
DEADLINE_S = 10.0


@dataclass(frozen=True)
class Variable:
    name: str
    default: str
    effect: str
    read_by: str = "python"  # or "shell"


VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        Variable("DTLAB_IMPL", "exercises", "what `pytest` grades when `--impl` is not given"),
        Variable("DTLAB_LANG", "en", "language of feedback when `--lang` is not given (`en` or `vi`)"),
        Variable(
            "DTLAB_PROFILE",
            "student",
            "hypothesis profile when `--hypothesis-profile` is not given (`student`, `grading`, `ci`)",
        ),
        Variable(
            "DTLAB_DEADLINE",
            f"{DEADLINE_S:g}",
            "seconds one task may take in the worker world when `--dtlab-deadline` is not given (`dtlab "
            "grade` takes its `--deadline`, else 10, whatever this says)",
        ),
        Variable(
            "DTLAB_BACKEND",
            "auto",
            "backend of the worker worlds when `--backend` is not given: `auto` (NCCL where every rank "
            "has a GPU of its own, else gloo), `gloo`, `nccl` (a test needing more GPUs is skipped)",
        ),
        Variable(
            "DTLAB_TORCHRUN_WORLD",
            "",
            "set by `python -m graders.run` for the pytest it starts on rank 0: `host:port:N`, the "
            "torchrun job's store and size, whose ranks make the worker worlds",
        ),
        Variable(
            "DTLAB_SANDBOX",
            "",
            "`off`: batch grading without namespaces and cgroup; `unsafe`: without any optional layer "
            "(trusted code only)",
        ),
        Variable("DTLAB_SANDBOX_UID", "52000", "the unprivileged uid of the first grading job (root only)"),
        Variable(
            "DTLAB_NOTEBOOK_PROFILE",
            "",
            "profile of the nbgrader notebook cells (default: `grading` under `nbgrader autograde`, "
            "else `student`)",
        ),
        Variable("DTLAB_GRADESCOPE_PROFILE", "", "overrides the profile written into the Gradescope zip"),
        Variable("DTLAB_WALL_S", "900", "wall-clock limit of one Gradescope submission (s)"),
        Variable("DTLAB_EXTRAS", "dev", "extras `scripts/setup.sh` installs (`dev,dask,nbgrader`)", "shell"),
        Variable(
            "DTLAB_TORCH_INDEX",
            "",
            "a package index with CPU wheels of torch (pip's `--index-url`, e.g. "
            "`https://download.pytorch.org/whl/cpu`), for `scripts/setup.sh` and the Gradescope image's "
            "`setup.sh`; unset: pip's own configuration, then PyTorch's CPU index",
            "shell",
        ),
        Variable(
            "DTLAB_TORCH_FIND_LINKS",
            "",
            "a folder (or page) of torch wheels (pip's `--find-links`), for the same two scripts",
            "shell",
        ),
        Variable(
            "DTLAB_PIP_LOG",
            "",
            "the file pip's own lines go to while `scripts/setup.sh` installs (it sets it to "
            "`.venv/setup-pip.log`); unset, `scripts/install_torch.py` shows them",
            "shell",
        ),
        Variable(
            "DTLAB_INSTALLER",
            "uv",
            "`pip`: `scripts/setup.sh` installs with pip alone; else uv installs (from the indexes pip "
            "is configured with) and pip only where uv fails (`scripts/install_requirements.py`)",
            "shell",
        ),
        Variable(
            "DTLAB_ALLOW_CUDA_TORCH",
            "",
            "`1`: install a CUDA build of torch where no CPU build resolves (about 4.9 GB instead of "
            "1.1 GB); unset, setup stops before installing it and says its size",
            "shell",
        ),
        Variable(
            "DTLAB_AUTOGRADER_ROOT",
            "/autograder",
            "Gradescope's root: where `setup.sh` and `run_autograder` find `source/` (the zip) and "
            "`submission/`, and write `venv/` and `results/` (for tests)",
            "shell",
        ),
        Variable(
            "DTLAB_PYTHON", "/autograder/venv/bin/python", "the interpreter `run_autograder` uses", "shell"
        ),
    )
}


def get(name: str) -> str:
    """The variable's value now, or its declared default."""
    return os.environ.get(name, VARIABLES[name].default)


def impl() -> str:
    return get("DTLAB_IMPL")


def lang() -> str:
    return get("DTLAB_LANG")


def profile() -> str:
    return get("DTLAB_PROFILE")


def deadline() -> float:
    return float(get("DTLAB_DEADLINE"))


def backend() -> str:
    return get("DTLAB_BACKEND")


def torchrun_world() -> str:
    return get("DTLAB_TORCHRUN_WORLD")


def sandbox_mode() -> str:
    """``""`` (every layer this machine allows), ``"off"`` or ``"unsafe"``."""
    return get("DTLAB_SANDBOX")


def sandbox_uid() -> int:
    return int(get("DTLAB_SANDBOX_UID"))


def notebook_profile() -> str:
    chosen = get("DTLAB_NOTEBOOK_PROFILE")
    if chosen:
        return chosen
    return "grading" if os.environ.get("NBGRADER_EXECUTION") == "autograde" else "student"


def gradescope_profile(configured: str) -> str:
    return get("DTLAB_GRADESCOPE_PROFILE") or configured


def gradescope_wall_s() -> float:
    return float(get("DTLAB_WALL_S"))
