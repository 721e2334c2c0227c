"""Which chapter files are still the stubs the kit ships, untouched.

``dtlab stubs`` writes ``exercises/pristine.json``: a digest of every generated stub file. A
student's file whose digest is still the stub's holds no code of theirs, so each exercise of it
is "not started" without running anything: no worker world, no torch, no pytest (the first
``dtlab progress`` of a fresh clone answers in well under a second per chapter). A file changed by
one character is graded as usual.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = "pristine.json"


def digest(text: str) -> str:
    """The digest of a source file's text, line endings made Unix's first."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:32]


def manifest_text(stubs: dict[str, str]) -> str:
    """The manifest for ``{"chN/module.py": stub text}``."""
    digests = {name: digest(text) for name, text in sorted(stubs.items())}
    return json.dumps({"format": 1, "stubs": digests}, indent=1, sort_keys=True) + "\n"


def load(exercises_dir: Path) -> dict[str, str]:
    """``{"chN/module.py": digest}`` of the shipped stubs; empty when there is no manifest."""
    try:
        data = json.loads((Path(exercises_dir) / MANIFEST).read_text(encoding="utf-8"))
        stubs = data["stubs"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return stubs if isinstance(stubs, dict) else {}


def untouched(impl, chapter: str, modules: tuple[str, ...], manifest: dict[str, str]) -> set[str]:
    """The modules of ``chapter`` in ``impl`` that are byte for byte the shipped stubs."""
    found = set()
    for module in modules:
        wanted = manifest.get(f"{chapter}/{module}.py")
        try:
            text = impl.source(chapter, module).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if wanted and digest(text) == wanted:
            found.add(module)
    return found
