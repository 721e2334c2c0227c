"""Why a part failed: the kinds, the record every renderer reads, and the exceptions that carry it.

Two families of exceptions matter to hypothesis:

* :class:`GradingFailure` (an ``AssertionError``) is an ordinary failed property. Hypothesis
  shrinks it to the smallest example, which is cheap because the world stays alive.
* :class:`Halt` and its subclasses derive from ``BaseException`` so that hypothesis does not
  try to shrink them: a hang or a crash costs a world restart, and re-running it dozens of
  times would freeze the session; a missing stub or a syntax error fails every example alike.
  The example that triggered it is reported as is.

Each carries a :class:`Failure`: its kind, what went wrong, the example, the rank, the hint and
the picture, every text in every language. The record travels as data (the gradebook's JSON)
to every renderer; :func:`render` is the one that writes it as text.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum

from graders.words.text import in_every_lang
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


def _by_lang(text: object) -> dict[str, str]:
    return in_every_lang(text) if text else {}


@dataclass(frozen=True)
class Failure:
    """Why a part failed, as data. Texts are ``{lang: text}``; ``example`` (the case's one-line
    reproduction) reads the same in every language; ``subject`` is the exercise a message from the
    workers is about (a renderer that already names it leaves it out)."""

    kind: str
    body: dict[str, str] = field(default_factory=dict)
    example: str = ""
    picture: dict[str, str] = field(default_factory=dict)
    hint: dict[str, str] = field(default_factory=dict)
    rank: str = ""  # "1", or "0, 2" for several ranks; "" when it is about no rank
    subject: str = ""

    @classmethod
    def of(cls, kind: str, body: object = "", *, example: str = "", picture: object = "", hint: object = "",
           rank: object = "", subject: str = "") -> Failure:  # fmt: skip
        return cls(
            str(kind), _by_lang(body), example, _by_lang(picture), _by_lang(hint), _rank(rank, body), subject
        )

    def text(self, part: str, lang: str) -> str:
        return (getattr(self, part).get(lang) or getattr(self, part).get("en", "")) if part else ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> Failure | None:
        return cls(**data) if data else None


def _rank(rank: object, body: object) -> str:
    """The rank a failure is about: given, or the one its message was said with."""
    if rank == "" or rank is None:
        fields = getattr(body, "fields", {})
        rank = fields.get("rank", fields.get("ranks", ""))
    if isinstance(rank, list | tuple):
        return ", ".join(map(str, rank))
    return str(rank)


def render(failure: Failure, lang: str = "en", *, subject: bool = True) -> str:
    """The failure as text in ``lang``: what went wrong, the example, the picture, the hint."""
    body = failure.text("body", lang)
    if failure.kind == FailureKind.NOT_STARTED:
        head = f"{failure.subject}: {t('not started', lang)}" if subject else t("not started", lang)
        return head + (f" ({body})" if body else "")
    if subject and failure.subject:
        body = f"{failure.subject}: {body}"
    lines = [body]
    if failure.example:
        lines.append(f"{t('example', lang)}: {failure.example}")
    if failure.picture:
        lines.append(failure.text("picture", lang))
    if failure.hint:
        lines.append(f"{t('hint', lang)}: {failure.text('hint', lang)}")
    return "\n".join(lines)


class BannedCallError(RuntimeError):
    """Raised inside a worker when student code calls a function the exercise bans."""

    def __init__(self, name: str, exercise: str, site: str = "", why: str = "") -> None:
        self.name = name
        where = f" (at {site})" if site else ""
        qualified = name if "." in name or ":" in name else f"torch.distributed.{name}"
        if qualified.endswith(".*"):
            qualified = f"importing {qualified[:-2]}"
        why = why or "this exercise asks you to build it yourself"
        super().__init__(f"{qualified} is banned in {exercise}{where}: {why}")

    def __reduce__(self):
        return (type(self), (self.name, "", ""))


class _Carries:
    """An exception that carries a :class:`Failure` (``record``); ``str()`` is its English text."""

    kind = FailureKind.INTERNAL
    record: Failure

    @property
    def localized(self) -> dict[str, str]:
        """Its text in every language of the kit."""
        return {lang: render(self.record, lang) for lang in LANGS}


class GradingFailure(_Carries, AssertionError):
    """A property did not hold: ``message`` says what was expected and what was seen, ``example``
    which case shows it, ``picture`` draws it, ``hint`` points to the lesson (Texts or strs)."""

    kind = FailureKind.WRONG

    def __init__(self, message: object, hint: object = "", *, example: str = "", picture: object = "",
                 rank: object = "", subject: str = "") -> None:  # fmt: skip
        self.message, self.hint, self.example, self.picture = message, hint, example, picture
        self.fields = {"example": example, "picture": picture, "rank": rank, "subject": subject}
        self.record = Failure.of(self.kind, message, hint=hint, **self.fields)
        super().__init__(render(self.record))

    def again(self, **changes) -> GradingFailure:
        """The same failure with ``changes`` (``picture=``...), as an exception of the same type."""
        return _rebuild(type(self), (self.message, self.hint), {**self._rebuilt_with(), **changes})

    def _rebuilt_with(self) -> dict:
        return dict(self.fields)

    def __reduce__(self):
        return (_rebuild, (type(self), (self.message, self.hint), self._rebuilt_with()))


def _rebuild(cls, args, kwargs):
    return cls(*args, **kwargs)


class StudentError(GradingFailure):
    """Student code raised an exception on one or more ranks; the world survived."""

    kind = FailureKind.ERROR


class BannedCall(GradingFailure):
    """Student code called a function the exercise bans (even if it caught the error). ``note``
    is the integrity report's line: who called what (a Text, in every language)."""

    kind = FailureKind.BANNED

    def __init__(self, message: object, hint: object = "", *, note: str = "", **fields) -> None:
        self.note = note
        super().__init__(message, hint, **fields)

    def _rebuilt_with(self) -> dict:
        return {**self.fields, "note": self.note}


class Halt(_Carries, BaseException):
    """Stops a property at once, with no shrinking. ``report`` is the feedback (it may be a
    :class:`graders.words.messages.Text`), ``example`` the case it happened on."""

    def __init__(self, report: object, *, example: str = "", hint: object = "", rank: object = "") -> None:
        self.report, self.example, self.hint, self.rank = report, example, hint, rank
        self.record = Failure.of(self.kind, report, example=example, hint=hint, rank=rank)
        super().__init__(render(self.record))

    def __reduce__(self):
        fields = {"example": self.example, "hint": self.hint, "rank": self.rank}
        return (_rebuild, (type(self), (self.report,), fields))


class SubmissionError(Halt):
    """The submitted file cannot be used at all (it does not compile, say)."""

    kind = FailureKind.SUBMISSION


class IntegrityFailure(Halt):
    """The static scan found a way around the graders' guard in the graded code."""

    kind = FailureKind.INTEGRITY


class NotStarted(Halt):
    """The graded function still raises its generated TODO error (or its file is missing)."""

    kind = FailureKind.NOT_STARTED

    def __init__(self, exercise: str, detail: object = "") -> None:
        self.exercise = exercise
        self.detail = detail
        self.record = Failure.of(self.kind, detail, subject=exercise)
        BaseException.__init__(self, render(self.record))

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


def classify(exc: BaseException) -> FailureKind:
    """Why ``exc`` failed a part: the kind it carries, or the kit's own failure."""
    return exc.kind if isinstance(exc, _Carries) else FailureKind.INTERNAL


def record_of(exc: BaseException) -> Failure:
    """The failure ``exc`` carries; an exception of the kit's own is an internal failure, unsaid."""
    return exc.record if isinstance(exc, _Carries) else Failure(FailureKind.INTERNAL)
