"""Per-student results on disk: what makes a batch resumable.

Each finished student is written at once to ``OUT/.dtlab/results/<student>.json``, atomically
(:func:`graders.infra.files.write_atomic`), so an interrupted batch leaves only complete
results behind. A stored result is reused when it was graded from the same files, under every
setting that can change a verdict (chapter, profile, the world's task deadline and every limit
of :class:`~graders.grading.sandbox.Limits`: wall-clock time, memory, processes, disk, ...), and
by the same graders (a fingerprint of the kit's grading code and the chapter's test files);
anything else is graded again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from graders.grading.result import Settings, StudentResult, grader_files
from graders.impl import KIT_ROOT
from graders.infra.files import make_dirs, write_atomic

#: Modules of graders/ that hold only words for students, never a verdict.
WORDS_ONLY = frozenset({"hint.py"})


def kit_fingerprint(chapter: str, kit_root: Path = KIT_ROOT) -> str:
    """Changes whenever the graders that decide a score change."""
    h = hashlib.sha256()
    files = sorted((kit_root / "graders").rglob("*.py")) + grader_files(chapter, kit_root)
    for path in files:
        if "grading" in path.relative_to(kit_root).parts[:2] or path.name in WORDS_ONLY:
            continue  # the batch machinery and the hints do not decide scores
        h.update(str(path.relative_to(kit_root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def run_key(settings: Settings) -> dict:
    """Everything besides the submission's files that can change its verdict."""
    return {
        "chapter": settings.chapter,
        "profile": settings.profile,
        "deadline": settings.deadline,
        "lang": settings.lang,
        "limits": asdict(settings.limits),
        "kit": kit_fingerprint(settings.chapter, Path(settings.kit_root)),
    }


class ResultStore:
    def __init__(self, out_dir: Path, settings: Settings) -> None:
        self.dir = make_dirs(Path(out_dir) / ".dtlab" / "results")
        self.run_key = run_key(settings)

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
