"""Gradescope: the autograder zip (``dtlab gradescope build``) and what it runs.

The zip holds ``setup.sh`` (Gradescope runs it once to build the image: Python, torch, the kit),
``run_autograder`` (run for every submission), ``dtlab.json`` (chapter and profile) and
``kit/``: the student release plus the hidden graders, never the solutions. ``run_autograder``
grades ``/autograder/submission`` with the same sandboxed runner as ``dtlab grade`` and writes
``/autograder/results/results.json``. ``DTLAB_AUTOGRADER_ROOT`` (instead of ``/autograder``)
and ``DTLAB_PYTHON`` let it run anywhere, which is how the kit tests it.
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

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
# Set DTLAB_TORCH_INDEX to a package index with CPU wheels of torch if the default one has none.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v python3.11 >/dev/null; then
  apt-get update -qq && apt-get install -y -qq python3.11 python3.11-venv >/dev/null
fi
python3.11 -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet ${DTLAB_TORCH_INDEX:+--index-url "$DTLAB_TORCH_INDEX"} torch==2.13.0
/autograder/venv/bin/pip install --quiet ./kit
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grade /autograder/submission, write results.json.
set -uo pipefail
ROOT="${DTLAB_AUTOGRADER_ROOT:-/autograder}"
PY="${DTLAB_PYTHON:-$ROOT/venv/bin/python}"
HERE="$(cd "$(dirname "$0")" && pwd)"
export PYTHONPATH="$HERE/kit"
exec "$PY" -P -m graders.grading.gradescope --root "$ROOT" --config "$HERE/dtlab.json"
"""


def build(out_zip: Path, chapter: str, profile: str = "grading", kit_root: Path = KIT_ROOT) -> list[str]:
    """Write the autograder zip for ``chapter``; returns the names it holds."""
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
            config = json.dumps({"chapter": chapter, "profile": profile}, indent=2)
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


def run(root: Path, chapter: str, profile: str) -> dict:
    """Grade ``root/submission`` and write ``root/results/results.json``; returns the results."""
    from graders.grading import intake, outputs, sandbox
    from graders.grading.batch import LocalGrader
    from graders.grading.result import Settings

    started = time.monotonic()
    results_path = root / "results" / "results.json"
    results_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        modules = catalog.CHAPTERS[chapter].modules
        submission = root / "submission"
        staged = intake.stage(
            intake.folder_entries(submission), "submission", chapter, modules, str(submission)
        )
        grader = LocalGrader(jobs=1)
        try:
            settings = Settings(
                chapter, profile, limits=sandbox.Limits(wall_s=dtlab_config.gradescope_wall_s())
            )
            result = grader.grade(staged, settings)
        finally:
            grader.close()
        results = outputs.gradescope_results(result, chapter)
    except Exception as exc:  # noqa: BLE001 - Gradescope must always get a results.json
        results = {
            "score": 0.0,
            "output": f"the autograder could not grade this submission ({type(exc).__name__}: {exc}); "
            "please tell your teacher",
            "visibility": "visible",
            "tests": [],
        }
    results["execution_time"] = round(time.monotonic() - started, 1)
    results_path.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="run_autograder")
    parser.add_argument("--root", default="/autograder")
    parser.add_argument("--config", required=True)
    args = parser.parse_args(argv)
    config = json.loads(Path(args.config).read_text())
    profile = dtlab_config.gradescope_profile(config.get("profile", "grading"))
    results = run(Path(args.root), config["chapter"], profile)
    print(f"dtlab: {results['score']} points → {Path(args.root) / 'results' / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
