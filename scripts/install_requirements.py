"""Install packages into the virtual environment with uv where it can, else with pip.

Run with the virtual environment's Python by ``scripts/setup.sh``, with ``pip install``'s own
arguments (standard library only):

    python scripts/install_requirements.py -c .venv/torch-pin.txt -e ".[dev]"

uv installs the kit's requirements in seconds where pip takes about 40 s (``docs/measured.md``).
It reads pip's configuration (``pip config list``: the index, the extra indexes, the folders of
wheels and the certificate, from pip's files and its ``PIP_*`` variables), so both look in the
same places, and it resolves across the indexes as pip does (the best version wherever it lies).
uv itself comes from pip, into the environment. Where uv cannot be had, or fails, pip installs
instead, with the same arguments; ``DTLAB_INSTALLER=pip`` skips uv. uv compiles the bytecode as
pip does: graded code and the worker worlds import without writing it.
"""

from __future__ import annotations

import os
import subprocess
import sys

PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
#: pip's configuration scopes, weakest first (pip's own order: a later one wins)
_SCOPES = ("global", "user", "site", ":env:")
#: pip settings that say where packages come from, and uv's flag for each
_SOURCES = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links"}


def pip_settings(listing: str) -> dict[str, str]:
    """``key -> value`` of ``pip config list``'s output, the strongest scope winning."""
    found: dict[str, tuple[int, str]] = {}
    for line in listing.splitlines():
        name, sep, value = line.partition("=")
        scope, _, key = name.rpartition(".")
        if not sep or scope not in _SCOPES:
            continue
        strength = _SCOPES.index(scope)
        if key not in found or strength >= found[key][0]:
            found[key] = (strength, value.strip().strip("'\""))
    return {key: value for key, (_, value) in found.items()}


def uv_flags(settings: dict[str, str]) -> list[str]:
    """uv's flags for pip's sources: the same indexes and folders, searched as pip searches them."""
    flags = ["--index-strategy", "unsafe-best-match"]  # pip takes the best version from any index
    for key, flag in _SOURCES.items():
        for value in settings.get(key, "").split():
            flags += [flag, value]
    return flags


def _uv() -> list[str] | None:
    """How to run uv: the one in the environment, installed by pip if it is not there yet."""
    command = [sys.executable, "-m", "uv"]
    if subprocess.run([*command, "--version"], capture_output=True).returncode == 0:
        return command
    if subprocess.run([*PIP, "install", "uv"]).returncode != 0:
        return None
    return command


def install_with_uv(args: list[str]) -> bool:
    uv = _uv()
    if uv is None:
        return False
    listing = subprocess.run([*PIP, "config", "list"], capture_output=True, text=True).stdout
    settings = pip_settings(listing)
    env = dict(os.environ)
    if settings.get("cert"):
        env.setdefault("SSL_CERT_FILE", settings["cert"])
    command = [*uv, "pip", "install", "--python", sys.executable, "--compile-bytecode"]
    return subprocess.run([*command, *uv_flags(settings), *args], env=env).returncode == 0


def main(args: list[str]) -> int:
    if os.environ.get("DTLAB_INSTALLER", "uv") != "pip":
        if install_with_uv(args):
            return 0
        print("dtlab setup: uv could not install; pip installs instead", flush=True)
    return subprocess.run([*PIP, "install", *args]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
