"""What grading one submission takes (:class:`Settings`) and gives (:class:`StudentResult`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from graders.gradebook import Gradebook
from graders.grading.sandbox import Limits
from graders.impl import KIT_ROOT


@dataclass(frozen=True)
class Settings:
    chapter: str
    profile: str = "grading"
    deadline: float | None = None  # one task in the world (s); None: the kit's default
    limits: Limits = field(default_factory=Limits)
    kit_root: str = str(KIT_ROOT)  # where the graders (exercises/, hidden/) are read from
    lang: str = "en"  # the language of the feedback the graders write
    diagnose: bool = False  # run the diagnostic battery of failing exercises (misconceptions)


@dataclass
class StudentResult:
    student_id: str
    book: Gradebook
    seconds: float = 0.0
    error: str = ""  # why grading itself did not complete (time limit, ceiling, killed driver, ...)
    error_kind: str = ""  # a FailureKind: timeout, memory, pids, killed, interrupted, internal
    notes: list[str] = field(default_factory=list)
    timestamp: str = ""
    digest: str = ""
    timing: dict = field(default_factory=dict)  # startup_s, tests_s (as the driver measured)
    figures: dict[str, str] = field(default_factory=dict)  # report-relative PNG path -> base64 bytes
    #: exercise -> the mutants (by name) its failing code behaves like ([]: unrecognised), named
    #: after the batch from ``book.diagnostics`` (graders.misconceptions.teacher_view)
    misconceptions: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["book"] = self.book.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> StudentResult:
        return cls(**{**data, "book": Gradebook.from_dict(data["book"])})


def grader_files(chapter: str, kit_root: Path = KIT_ROOT) -> list[Path]:
    """The chapter's test files: public graders, then the hidden ones where the kit has them."""
    files = sorted((kit_root / "exercises" / chapter).glob("test_*.py"))
    files += sorted((kit_root / "hidden" / chapter).glob("test_*.py"))
    return files


def missing_graders(chapter: str, kit_root: Path = KIT_ROOT) -> str:
    """Why ``kit_root`` cannot grade ``chapter`` ("" when it can): its public graders are missing."""
    public = Path(kit_root) / "exercises" / chapter
    if not any(public.glob("test_*.py")):
        return f"no graders for {chapter}: {public} has no test_*.py files"
    return ""
