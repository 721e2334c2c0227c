"""One grading run, said once: what is graded, how, in which language, and where the gradebook goes.

Every path that grades builds a :class:`GradingRun`, once, where it reads its options, and passes
the object on: the student's ``dtlab progress`` / ``check`` / ``part`` (a pytest subprocess),
``dtlab watch`` (pytest in its own process), batch grading (pytest inside the sandbox, the run
held by :class:`graders.grading.result.Settings`), ``torchrun … -m graders.run`` (the driver of a
launched job) and, inside every pytest, the plugin (:func:`graders.plugin.options.build_run`),
whose world pool takes its backend and deadline from it. It becomes pytest's arguments
(:meth:`GradingRun.options`) where it crosses into another process, and plain data
(:meth:`GradingRun.to_dict`) where a Dask worker builds it again. The environment's variables
(``DTLAB_IMPL``, ``DTLAB_BACKEND``, ...) are only the defaults of what a run leaves unsaid, read
when it is built (:meth:`GradingRun.with_defaults`); nothing passes a choice on through them.

A run is checked when it is made: an unknown profile, backend, language, chapter or exercise, a
deadline of 0 s or less, an exercise outside the run's chapters, or an implementation folder that
does not exist is refused there (:class:`InvalidRun`, :class:`graders.impl.ImplNotFound`), with
what is wrong and what to choose from. The options they share (``--impl``, ``--lang``,
``--backend``, ``--profile``) are declared once here too, for pytest and for the ``dtlab`` command
alike (:func:`add_options`), and so are the profiles there are (:data:`PROFILES`).

This module imports neither pytest nor torch: ``dtlab progress`` answers without them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

from graders import config
from graders.impl import Impl, ImplNotFound
from graders.words.chapter_names import unknown_chapters
from graders.words.messages import say
from graders.words.numbers import is_number
from graders.words.text import join, number
from graders.words.vocabulary import LANGS
from graders.world.backend import BACKENDS

#: the kit's hypothesis profiles (:mod:`graders.plugin.profiles` registers them, and says how many
#: examples each draws): ``student`` (the default), ``grading`` (the teacher's), ``ci`` (the kit's
#: own tests) and ``mutants`` (the parts a mutant must still pass)
PROFILES = ("student", "grading", "ci", "mutants")


class InvalidRun(ValueError):
    """A grading run that cannot be made: what is wrong, and what to choose instead."""


#: The options every way of grading shares, and what they say. Each entry is given to
#: ``parser.add_argument`` (the dtlab command) and to pytest's ``group.addoption`` alike.
RUN_OPTIONS: dict[str, dict] = {
    "impl": {
        "flags": ("--impl",),
        "help": "what to grade: exercises (the stubs), solutions, or a submission folder",
        "default_is": "$DTLAB_IMPL, else exercises",
    },
    "lang": {
        "flags": ("--lang",),
        "choices": LANGS,
        "help": "language of the summary and feedback words",
        "default_is": "$DTLAB_LANG, else en",
    },
    "backend": {
        "flags": ("--backend",),
        "pytest_dest": "dtlab_backend",
        "choices": BACKENDS,
        "help": "backend of the worker worlds: auto (NCCL where every rank has a GPU of its own, else "
        "gloo), gloo, or nccl (a test needing more GPUs than present is skipped)",
        "default_is": "$DTLAB_BACKEND, else auto",
    },
    "profile": {
        "flags": ("--profile",),
        "choices": PROFILES,
        "help": f"hypothesis profile: {', '.join(PROFILES)}",
        "default_is": "$DTLAB_PROFILE, else student",
    },
}


def add_options(parser, *names: str, pytest: bool = False, **defaults) -> None:
    """Declare the run options ``names`` on an argparse parser, or (``pytest=True``) on pytest's
    option group: the same flags, choices and help in both. A keyword ``lang="en"`` gives that
    option a default of its own instead of the environment's."""
    for name in names:
        spec = dict(RUN_OPTIONS[name])
        flags, dest = spec.pop("flags"), spec.pop("pytest_dest", None)
        default = defaults.get(name)
        spec["help"] += f" (default: {default if default is not None else spec['default_is']})"
        del spec["default_is"]
        if pytest:
            parser.addoption(*flags, dest=dest or name, default=default, **spec)
        else:
            parser.add_argument(*flags, dest=name, default=default, **spec)


@dataclass(frozen=True)
class GradingRun:
    """One run of the graders over an implementation.

    ``impl`` is an :class:`~graders.impl.Impl` (a spec such as ``"solutions"`` or a folder is
    resolved when the run is made); ``tests`` are the test files or folders (default:
    ``exercises/chN`` of every chapter); ``exercises`` narrows the run to those exercises' tests;
    ``None`` leaves a setting unsaid: the environment's default where the run is built
    (:meth:`with_defaults`), else the plugin's in the pytest that runs it. ``extra`` goes to
    pytest as it is.
    """

    impl: Impl | None = None
    chapters: tuple[str, ...] = ()
    exercises: tuple[str, ...] = ()
    tests: tuple[str | Path, ...] = ()
    profile: str | None = None
    lang: str | None = None
    report: Path | None = None
    deadline: float | None = None
    backend: str | None = None
    diagnose: bool = False
    #: pytest's cache (``--lf``): a run made for the student by a command keeps none of its own
    cache: bool = False
    extra: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.impl is not None and not isinstance(self.impl, Impl):
            object.__setattr__(self, "impl", Impl.resolve(self.impl))  # ImplNotFound: no such folder
        for name in ("chapters", "exercises", "tests", "extra"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.report is not None:
            object.__setattr__(self, "report", Path(self.report))
        problems = [_problem(name, getattr(self, name)) for name in _CHECKED]
        problems += _outside_the_catalogue(self.chapters, self.exercises)
        problems = [p for p in problems if p]
        if problems:
            raise InvalidRun(join("; ", problems))

    def with_defaults(self, *, unsaid: tuple[str, ...] = ()) -> GradingRun:
        """This run with every setting it leaves unsaid (``impl``, ``profile``, ``lang``,
        ``deadline``, ``backend``) taken from the environment (``DTLAB_IMPL``, ...; see
        :mod:`graders.config`), but those named in ``unsaid``: what a command builds, once, from
        its options. A variable's value that cannot be is refused, naming the variable."""
        missing = [n for n in _DEFAULTS if getattr(self, n) is None and n not in unsaid]
        return replace(self, **{name: _default(name) for name in missing})

    def to_dict(self) -> dict:
        """The run as plain data, for another process to make it again (:meth:`from_dict`)."""
        return {
            "impl": self.impl.spec if self.impl is not None else None,
            "chapters": list(self.chapters),
            "exercises": list(self.exercises),
            "tests": [str(t) for t in self.tests],
            "profile": self.profile,
            "lang": self.lang,
            "report": str(self.report) if self.report is not None else None,
            "deadline": self.deadline,
            "backend": self.backend,
            "diagnose": self.diagnose,
            "cache": self.cache,
            "extra": list(self.extra),
        }

    @classmethod
    def from_dict(cls, data: dict) -> GradingRun:
        return cls(**data)

    def test_paths(self, kit_root: Path) -> list[str]:
        return [str(t) for t in self.tests] or [str(kit_root / "exercises" / c) for c in self.chapters]

    def options(self) -> list[str]:
        """The dtlab and pytest options of the run, without the tests it runs: the run as the
        pytest it starts receives it, and builds it again from (``build_run``)."""
        args = [f"--impl={self.impl.spec}"] if self.impl is not None else []
        args += [f"--dtlab-exercise={e}" for e in self.exercises]
        if self.profile:
            args.append(f"--hypothesis-profile={self.profile}")
        if self.lang:
            args.append(f"--lang={self.lang}")
        if self.report:
            args.append(f"--dtlab-report={self.report}")
        if self.deadline is not None:
            args.append(f"--dtlab-deadline={self.deadline}")
        if self.backend:
            args.append(f"--backend={self.backend}")
        if self.diagnose:
            args.append("--dtlab-diagnose")
        if not self.cache:
            args += ["-p", "no:cacheprovider"]
        return [*args, *self.extra]

    def pytest_args(self, kit_root: Path) -> list[str]:
        """``pytest``'s whole argument list: the tests, then :meth:`options`."""
        return [*self.test_paths(kit_root), *self.options()]


#: the settings checked one by one, and the variables that give their defaults
_CHECKED = ("profile", "lang", "deadline", "backend")
_DEFAULTS = {
    "impl": "DTLAB_IMPL",
    "profile": "DTLAB_PROFILE",
    "lang": "DTLAB_LANG",
    "deadline": "DTLAB_DEADLINE",
    "backend": "DTLAB_BACKEND",
}


def _problem(name: str, value) -> str:
    """What is wrong with ``value`` as the run's ``name`` ("" when nothing is, or it is unsaid), in
    every language."""
    choices = {"profile": PROFILES, "lang": LANGS, "backend": BACKENDS}.get(name)
    if value is None:
        return ""
    if choices is not None and value not in choices:
        return say("run:unknown choice", name=name, value=value, choices=", ".join(choices))
    if name == "deadline" and not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        return say("run:deadline", value=number(value) if is_number(value) else repr(value))
    return ""


def _default(name: str):
    """The environment's default of the run's setting ``name``, refused naming its variable when
    it cannot be."""
    variable = _DEFAULTS[name]
    text = config.get(variable)
    if name == "impl":
        try:
            return Impl.resolve(text)
        except ImplNotFound:
            raise ImplNotFound(f"${variable}={text!r}: " + say("run:no such folder")) from None
    value = text
    if name == "deadline":
        try:
            value = float(text)
        except ValueError:
            raise InvalidRun(f"${variable}={text!r}: " + say("run:not seconds")) from None
    if _problem(name, value):
        raise InvalidRun(f"${variable}={text!r}: " + _problem(name, value))
    return value


def _outside_the_catalogue(chapters: tuple[str, ...], exercises: tuple[str, ...]) -> list[str]:
    """The chapters and exercises the catalogue does not know, and the exercises outside
    ``chapters`` (when the run names its chapters)."""
    if not chapters and not exercises:
        return []
    from graders import catalog

    problems = [unknown_chapters(chapters)]
    unknown = [e for e in exercises if e not in catalog.EXERCISES]
    names = ", ".join(map(repr, unknown))
    if len(unknown) > 1:
        problems.append(say("run:unknown exercises", names=names))
    elif unknown:
        problems.append(say("run:unknown exercise", names=names))
    outside = [
        e for e in exercises if e in catalog.EXERCISES and chapters and e.split(".")[0] not in chapters
    ]
    if outside:
        problems.append(say("run:outside", exercises=", ".join(outside), chapters=", ".join(chapters)))
    return problems
