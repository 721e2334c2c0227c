"""Gradescope: the autograder zip (``dtlab gradescope build``) and what it runs.

The zip follows Gradescope's documented layout. At its root: ``setup.sh`` (run once, as root,
to build the image: Python, torch, the kit) and ``run_autograder`` (run for every submission),
next to ``dtlab.json`` (chapter, profile, and the feedback's language: ``DTLAB_LANG`` when the zip
was built) and ``kit/`` (the student release plus the hidden graders, never the solutions).
Gradescope unpacks the zip into ``/autograder/source``, *copies* ``run_autograder`` to
``/autograder/run_autograder`` and runs that copy from ``/autograder``, with the student's files
in ``/autograder/submission``; it reads
``/autograder/results/results.json``. So ``run_autograder`` never looks next to itself: it finds
the kit and ``dtlab.json`` in ``/autograder/source``, and passes the kit's folder explicitly, so
the test files always come from there, whichever copy of the ``graders`` package Python imports.
``setup.sh`` installs the kit in place (editable), so that there is only that one copy.

``run_autograder`` grades with the same sandboxed runner as ``dtlab grade``; Gradescope always
gets a ``results.json``, which says what failed when grading could not happen.
``DTLAB_AUTOGRADER_ROOT`` (instead of ``/autograder``) and ``DTLAB_PYTHON`` let it run anywhere,
which is how the kit tests it, in that layout.
"""

from __future__ import annotations

import argparse
import json
import shutil
import stat
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from graders import catalog
from graders import config as dtlab_config
from graders.authoring import release
from graders.impl import KIT_ROOT
from graders.words.messages import say
from graders.words.text import exception_text
from graders.words.vocabulary import LANGS, t

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image; the zip's contents are
# in /autograder/source. The kit runs on Python 3.11 to 3.13: the kit's scripts/image_python.sh
# takes the image's own if it is one of them (Ubuntu 24.04: 3.12), else installs one beside it
# (apt, the deadsnakes PPA or uv; the image's python3 stays, Gradescope's harness runs it).
# Which torch is installed is decided by the kit's scripts/install_torch.py, as for
# scripts/setup.sh: the CPU build of torch 2.13.0 (DTLAB_TORCH_INDEX, DTLAB_TORCH_FIND_LINKS say
# where from; a CUDA build only with DTLAB_ALLOW_CUDA_TORCH=1).
set -euo pipefail
ROOT="${DTLAB_AUTOGRADER_ROOT:-/autograder}"
KIT="$ROOT/source/kit"
PY=$(bash "$KIT/scripts/image_python.sh")
echo "==> creating $ROOT/venv with $PY ($("$PY" --version))"
"$PY" -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" "$KIT/scripts/install_torch.py" install
# In place: the graders Python imports are the ones next to their test files in source/kit.
echo "==> installing the kit in place"
"$ROOT/venv/bin/pip" install --quiet -e "$ROOT/source/kit"
"$ROOT/venv/bin/python" "$KIT/scripts/install_torch.py" verify
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope copies this file to /autograder/run_autograder and runs the copy from /autograder for
# every submission: grade /autograder/submission with the kit in /autograder/source, write
# /autograder/results/results.json (always: it says what failed when grading could not happen).
set -uo pipefail
ROOT="${DTLAB_AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
PY="${DTLAB_PYTHON:-$ROOT/venv/bin/python}"
export PYTHONPATH="$SOURCE/kit"
rm -f "$ROOT/results/results.json"
"$PY" -P -m graders.grading.lms.gradescope --root "$ROOT" --source "$SOURCE"
if [ ! -s "$ROOT/results/results.json" ]; then  # Python itself failed: its error is in the stdout above
  mkdir -p "$ROOT/results"
  echo '{"score": 0.0, "visibility": "visible", "tests": [],' \\
    '"output": "the autograder could not start; please tell your teacher"}' > "$ROOT/results/results.json"
fi
"""


def build(
    out_zip: Path, chapter: str, profile: str = "grading", kit_root: Path = KIT_ROOT, lang: str = "en"
) -> list[str]:
    """Write the autograder zip for ``chapter``, whose feedback reads in ``lang``; returns the names
    it holds."""
    with tempfile.TemporaryDirectory() as tmp:
        kit = Path(tmp) / "kit"
        release.build(kit, kit_root)
        for path in sorted((kit_root / "hidden" / chapter).glob("*.py")):
            target = kit / "hidden" / chapter / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        leaks = release.find_leaks(kit, kit_root)
        if leaks:
            raise RuntimeError(
                "the autograder would contain solution code:\n" + "\n".join(map(str, leaks[:10]))
            )
        names = []
        out_zip = Path(out_zip)
        out_zip.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out_zip, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
                info.external_attr = (stat.S_IFREG | 0o755) << 16
                zf.writestr(info, text)
                names.append(name)
            config = json.dumps({"chapter": chapter, "profile": profile, "lang": lang}, indent=2)
            files = [("dtlab.json", config.encode())]
            files += [
                ("kit/" + p.relative_to(kit).as_posix(), p.read_bytes())
                for p in sorted(kit.rglob("*"))
                if p.is_file()
            ]
            for name, data in files:
                info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, data)
                names.append(name)
    return names


def run(root: Path, source: Path) -> dict:
    """Grade ``root/submission`` with the kit in ``source`` and write ``root/results/results.json``."""
    started = time.monotonic()
    results_path = root / "results" / "results.json"
    results_path.parent.mkdir(parents=True, exist_ok=True)
    lang = zip_lang(source)
    try:
        results = _grade(root / "submission", source, lang)
    except Exception as exc:  # noqa: BLE001 - Gradescope must always get a results.json
        error = f"{type(exc).__name__}: {exception_text(exc, lang)}"
        results = {
            "score": 0.0,
            "output": t("gradescope:could not grade", lang, error=error),
            "visibility": "visible",
            "tests": [],
        }
    results["execution_time"] = round(time.monotonic() - started, 1)
    results_path.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return results


def zip_lang(source: Path) -> str:
    """The language the zip in ``source`` was built for (English where it names none it knows)."""
    try:
        lang = json.loads((source / "dtlab.json").read_text()).get("lang", "en")
    except (OSError, ValueError, AttributeError):
        return "en"
    return lang if lang in LANGS else "en"


def _grade(submission: Path, source: Path, lang: str = "en") -> dict:
    from graders.grading import intake, sandbox
    from graders.grading.batch import LocalGrader
    from graders.grading.reports import outputs
    from graders.grading.result import Settings, missing_graders

    config = json.loads((source / "dtlab.json").read_text())
    chapter = config["chapter"]
    profile = dtlab_config.gradescope_profile(config.get("profile", "grading"))
    kit = source / "kit"
    missing = missing_graders(chapter, kit)
    if missing:
        raise FileNotFoundError(say("gradescope:incomplete", missing=missing))
    if not submission.is_dir():
        raise FileNotFoundError(say("gradescope:no submission", submission=submission))
    modules = catalog.CHAPTERS[chapter].modules
    staged = intake.stage(intake.folder_entries(submission), "submission", chapter, modules, str(submission))
    limits = sandbox.Limits(wall_s=dtlab_config.gradescope_wall_s())
    grader = LocalGrader(jobs=1)
    try:
        settings = Settings.of(chapter, profile, limits=limits, kit_root=str(kit), lang=lang)
        result = grader.grade(staged, settings)
    finally:
        grader.close()
    return outputs.gradescope_results(result, chapter, lang)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="run_autograder")
    parser.add_argument("--root", default="/autograder")
    parser.add_argument("--source", default=None, help="the unpacked zip (default: ROOT/source)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    results = run(root, Path(args.source) if args.source else root / "source")
    lang = zip_lang(Path(args.source) if args.source else root / "source")
    print(t("gradescope:score", lang, score=results["score"], path=root / "results" / "results.json"))
    print(results.get("output", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
