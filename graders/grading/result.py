"""What grading one submission takes (:class:`Settings`) and gives (:class:`StudentResult`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from graders.gradebook import Gradebook
from graders.grading.sandbox import Limits
from graders.impl import KIT_ROOT
from graders.plugin.run_spec import GradingRun
from graders.words.messages import say

#: the backend a class is graded with: alike on any machine (the sandbox shows no GPU)
CLASS_BACKEND = "gloo"


@dataclass(frozen=True)
class Settings:
    """What grading one submission of a class takes: the class's grading run (its one chapter,
    profile, language, task deadline, backend and whether to run the diagnostic battery), the
    sandbox's limits, and the kit whose graders grade. Each submission is graded by this run
    with its own folder as the implementation (:meth:`submission_run`)."""

    run: GradingRun
    limits: Limits = field(default_factory=Limits)
    kit_root: str = str(KIT_ROOT)  # where the graders (exercises/, hidden/) are read from

    def __post_init__(self) -> None:
        run = self.run
        if len(run.chapters) != 1 or run.impl is not None or run.tests:
            raise ValueError("a class's grading run names its one chapter, and no implementation or tests")
        if run.profile is None or run.lang is None or run.backend != CLASS_BACKEND:
            raise ValueError(
                f"a class's grading run says its profile and language, and grades on {CLASS_BACKEND}"
            )

    @classmethod
    def of(
        cls,
        chapter: str,
        profile: str = "grading",
        deadline: float | None = None,  # one task in the world (s); None: the kit's default
        limits: Limits | None = None,
        *,
        kit_root: str = str(KIT_ROOT),
        lang: str = "en",  # the language of the feedback the graders write
        diagnose: bool = False,  # run the diagnostic battery of failing exercises (misconceptions)
    ) -> Settings:
        run = GradingRun(
            chapters=(chapter,),
            profile=profile,
            lang=lang,
            deadline=deadline,
            backend=CLASS_BACKEND,
            diagnose=diagnose,
        )
        return cls(run, limits or Limits(), kit_root)

    @property
    def chapter(self) -> str:
        return self.run.chapters[0]

    @property
    def profile(self) -> str:
        return self.run.profile

    @property
    def deadline(self) -> float | None:
        return self.run.deadline

    @property
    def lang(self) -> str:
        return self.run.lang

    @property
    def diagnose(self) -> bool:
        return self.run.diagnose

    def submission_run(self, impl: Path, tests: Path, report: Path, extra: tuple[str, ...]) -> GradingRun:
        """The class's run over one submission: its folder ``impl``, the graders' copies in ``tests``."""
        return replace(self.run, impl=impl, tests=(tests,), report=report, extra=extra)

    def to_dict(self) -> dict:
        """Plain data, for a Dask worker to make the settings again (:meth:`from_dict`)."""
        return {"run": self.run.to_dict(), "limits": asdict(self.limits), "kit_root": self.kit_root}

    @classmethod
    def from_dict(cls, data: dict) -> Settings:
        kit = {"kit_root": data["kit_root"]} if "kit_root" in data else {}
        return cls(GradingRun.from_dict(data["run"]), Limits(**data["limits"]), **kit)


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
    commit: str = ""  # a repository's graded commit, its committer date, and whether it is late
    commit_time: str = ""
    commit_late: bool = False
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
        return say("verdict:no graders", chapter=chapter, folder=public)
    return ""
