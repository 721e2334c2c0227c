"""Per-student results on disk: what makes a batch resumable.

Each finished student is written at once to ``OUT/.dtlab/results/<student>.json``, atomically
(a temporary file in the same folder, flushed, then renamed), so an interrupted batch leaves
only complete results behind. A stored result is reused when it was graded from the same
files, with the same chapter, profile and deadline, and by the same graders (a fingerprint of
the kit's grading code and the chapter's test files); anything else is graded again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from graders.grading.runner import Settings, StudentResult, grader_files
from graders.impl import KIT_ROOT


def kit_fingerprint(chapter: str, kit_root: Path = KIT_ROOT) -> str:
    """Changes whenever the graders that decide a score change."""
    h = hashlib.sha256()
    files = sorted((kit_root / "graders").rglob("*.py")) + grader_files(chapter, kit_root)
    for path in files:
        if "grading" in path.relative_to(kit_root).parts[:2]:
            continue  # the batch machinery itself does not decide scores
        h.update(str(path.relative_to(kit_root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


class ResultStore:
    def __init__(self, out_dir: Path, settings: Settings) -> None:
        self.dir = Path(out_dir) / ".dtlab" / "results"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.run_key = {
            "chapter": settings.chapter,
            "profile": settings.profile,
            "deadline": settings.deadline,
            "kit": kit_fingerprint(settings.chapter, Path(settings.kit_root)),
        }

    def path(self, student_id: str) -> Path:
        return self.dir / f"{student_id}.json"

    def load(self, student_id: str, digest: str) -> StudentResult | None:
        """The stored result for this student, if it is still valid for these files and graders."""
        try:
            data = json.loads(self.path(student_id).read_text())
        except (OSError, ValueError):
            return None
        if data.get("run") != self.run_key or data.get("result", {}).get("digest") != digest:
            return None
        try:
            return StudentResult.from_dict(data["result"])
        except (KeyError, TypeError):
            return None

    def save(self, result: StudentResult) -> None:
        write_atomic(
            self.path(result.student_id), json.dumps({"run": self.run_key, "result": result.to_dict()})
        )

    def all(self) -> list[StudentResult]:
        results = []
        for path in sorted(self.dir.glob("*.json")):
            try:
                data = json.loads(path.read_text())
                if data.get("run") == self.run_key:
                    results.append(StudentResult.from_dict(data["result"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return results


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
