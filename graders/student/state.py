"""``.dtlab/progress.json``: each chapter's last grade, with the hash of what decided it.

A chapter's record is reused while its key (:func:`graders.student.fingerprint.chapter_key`) is
the same. The file is rewritten atomically after every chapter graded, so an interrupted run
keeps what it finished; a file that cannot be read (corrupt, from another version) is replaced.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graders.impl import KIT_ROOT
from graders.infra.files import write_atomic

VERSION = 1
DEFAULT_PATH = KIT_ROOT / ".dtlab" / "progress.json"


@dataclass
class ExerciseMark:
    status: str  # a graders.gradebook status: passed, failed, not started, not run
    points: int
    max_points: int


@dataclass
class ChapterRecord:
    key: str
    exercises: dict[str, ExerciseMark] = field(default_factory=dict)  # exercise id -> its mark
    seconds: float = 0.0  # how long grading it took
    graded_at: str = ""  # ISO time

    @classmethod
    def from_book(cls, key: str, book: dict, seconds: float, graded_at: str) -> ChapterRecord:
        """From a gradebook as ``--dtlab-report`` writes it."""
        marks = {
            row["exercise"]: ExerciseMark(row["status"], int(row["points"]), int(row["max_points"]))
            for row in book.get("exercises", [])
        }
        return cls(key, marks, round(seconds, 2), graded_at)

    @classmethod
    def from_dict(cls, data: dict) -> ChapterRecord:
        marks = {name: ExerciseMark(**mark) for name, mark in data["exercises"].items()}
        return cls(str(data["key"]), marks, float(data["seconds"]), str(data["graded_at"]))


class ProgressState:
    def __init__(self, path: Path, chapters: dict[str, ChapterRecord], replaced: str = "") -> None:
        self.path = Path(path)
        self.chapters = chapters
        self.replaced = replaced  # why the file on disk was not used ("" when it was, or was absent)

    @classmethod
    def load(cls, path: Path = DEFAULT_PATH) -> ProgressState:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls(path, {})
        except (OSError, UnicodeDecodeError) as exc:
            return cls(path, {}, f"unreadable ({exc.__class__.__name__})")
        try:
            data = json.loads(text)
            if data.get("version") != VERSION:
                return cls(path, {}, f"version {data.get('version')!r}, not {VERSION}")
            chapters = {name: ChapterRecord.from_dict(r) for name, r in data["chapters"].items()}
        except (ValueError, AttributeError, KeyError, TypeError) as exc:
            return cls(path, {}, f"corrupt ({exc.__class__.__name__})")
        return cls(path, chapters)

    def fresh(self, chapter: str, key: str) -> ChapterRecord | None:
        """The stored record of ``chapter`` if it was graded from exactly this key."""
        record = self.chapters.get(chapter)
        return record if record is not None and record.key == key else None

    def store(self, chapter: str, record: ChapterRecord) -> None:
        """Record ``chapter`` and write the file, keeping what another run stored meanwhile."""
        self.chapters[chapter] = record
        chapters = {**ProgressState.load(self.path).chapters, chapter: record}
        data = {"version": VERSION, "chapters": {name: asdict(r) for name, r in sorted(chapters.items())}}
        write_atomic(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
