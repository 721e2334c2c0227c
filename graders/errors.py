"""Exceptions of the grading kit.

Two families matter to hypothesis:

* :class:`GradingFailure` (an ``AssertionError``) is an ordinary failed property. Hypothesis
  shrinks it to the smallest example, which is cheap because the world stays alive.
* :class:`Halt` and its subclasses derive from ``BaseException`` so that hypothesis does not
  try to shrink them: a hang or a crash costs a world restart, and re-running it dozens of
  times would freeze the session; a missing stub or a syntax error fails every example alike.
  The example that triggered it is reported as is.
"""

from __future__ import annotations

from enum import StrEnum

from graders.words.messages import each_lang, in_lang
from graders.words.vocabulary import LANGS, t


class FailureKind(StrEnum):
    """Why a part did not pass, or why grading a submission stopped: one vocabulary everywhere
    (exceptions, the gradebook, reports, CSVs, feedback). The values are what files show."""

    WRONG = "wrong"  # a property did not hold
    HANG = "hang"  # a task missed its deadline
    CRASH = "crash"  # a rank died
    ERROR = "error"  # student code raised (on some ranks, others left waiting)
    BANNED = "banned"  # a banned call was made
    INTEGRITY = "integrity"  # the static scan found a way around the guard
    SUBMISSION = "submission"  # the file cannot be used (does not compile)
    NOT_STARTED = "not started"  # still the stub's TODO, or the file is missing
    INTERNAL = "internal"  # the kit itself failed
    # why grading a whole submission stopped (batch grading)
    TIMEOUT = "timeout"
    MEMORY = "memory"
    PIDS = "pids"
    DISK = "disk"  # the job's work area (its size-limited tmpfs) filled up
    KILLED = "killed"
    INTERRUPTED = "interrupted"  # the run stopped before every test had run: the rest scores 0


#: Prefix of the ``NotImplementedError`` message raised by every generated stub.
TODO_MARKER = "[dtlab TODO]"


class BannedCallError(RuntimeError):
    """Raised inside a worker when student code calls a function the exercise bans."""

    def __init__(self, name: str, exercise: str, site: str = "", why: str = "") -> None:
        self.name = name
        where = f" (at {site})" if site else ""
        qualified = name if "." in name else f"torch.distributed.{name}"
        if qualified.endswith(".*"):
            qualified = f"importing {qualified[:-2]}"
        why = why or "this exercise asks you to build it yourself"
        super().__init__(f"{qualified} is banned in {exercise}{where}: {why}")

    def __reduce__(self):
        return (type(self), (self.name, "", ""))


class GradingFailure(AssertionError):
    """A property did not hold. The message is the teaching feedback; ``localized`` holds it in
    every language of the kit (``message`` and ``hint`` may be :class:`graders.words.messages.Text`)."""

    def __init__(self, message: str, hint: str = "") -> None:
        self.message = message
        self.hint = hint

        def in_one(lang: str) -> str:
            return in_lang(message, lang) + (f"\n{t('hint', lang)}: {in_lang(hint, lang)}" if hint else "")

        text = each_lang(in_one)
        self.localized = dict(text.by_lang)
        super().__init__(str(text))

    def __reduce__(self):
        return (type(self), (self.message, self.hint))


class StudentError(GradingFailure):
    """Student code raised an exception on one or more ranks; the world survived."""


class BannedCall(GradingFailure):
    """Student code called a function the exercise bans (even if it caught the error)."""


class Halt(BaseException):
    """Stops a property at once, with no shrinking. ``report`` is the feedback (it may be a
    :class:`graders.words.messages.Text`; ``localized`` holds it in every language of the kit)."""

    kind = FailureKind.INTERNAL

    def __init__(self, report: str) -> None:
        self.report = report
        self.localized = {lang: in_lang(report, lang) for lang in LANGS}
        super().__init__(report)


class SubmissionError(Halt):
    """The submitted file cannot be used at all (it does not compile, say)."""

    kind = FailureKind.SUBMISSION


class IntegrityFailure(Halt):
    """The static scan found a way around the graders' guard in the graded code."""

    kind = FailureKind.INTEGRITY


class NotStarted(Halt):
    """The graded function still raises its generated TODO error (or its file is missing)."""

    kind = FailureKind.NOT_STARTED

    def __init__(self, exercise: str, detail: str = "") -> None:
        self.exercise = exercise
        self.detail = detail
        super().__init__(
            each_lang(
                lambda lang: (
                    f"{exercise}: {t('not started', lang)}"
                    + (f" ({in_lang(detail, lang)})" if detail else "")
                )
            )
        )

    def __reduce__(self):
        return (type(self), (self.exercise, self.detail))


class WorldFailure(Halt):
    """The worker world broke during a task (hang, crash, or a rank left waiting)."""


class TaskHang(WorldFailure):
    kind = FailureKind.HANG


class RankCrash(WorldFailure):
    kind = FailureKind.CRASH


class RankErrorWithStuckPeers(WorldFailure):
    kind = FailureKind.ERROR


class WorldStartError(RuntimeError):
    """The worker processes could not be started or could not rendezvous."""
