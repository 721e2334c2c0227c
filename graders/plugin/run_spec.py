"""One grading run, said once: what is graded, how, in which language, and where the gradebook goes.

Every path that grades builds a :class:`GradingRun` and asks it for pytest's arguments: the
student's ``dtlab progress`` / ``check`` (a pytest subprocess), ``dtlab watch`` (pytest in its own
process), batch grading (pytest inside the sandbox) and ``torchrun … -m graders.run`` (the driver of a
launched job). The options they share (``--impl``, ``--lang``, ``--backend``, ...) are declared once
here too, for pytest and for the ``dtlab`` command alike (:func:`add_options`).

This module imports neither pytest nor torch: ``dtlab progress`` answers without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graders.words.vocabulary import LANGS
from graders.world.backend import BACKENDS

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
        "help": "hypothesis profile: student, grading or ci",
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

    ``tests`` are the test files or folders (default: ``exercises/chN`` of every chapter);
    ``exercises`` narrows the run to those exercises' tests; ``None`` leaves a setting to the
    plugin's default (the environment, then the kit's). ``extra`` goes to pytest as it is.
    """

    impl: str | Path | None = None
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

    def test_paths(self, kit_root: Path) -> list[str]:
        return [str(t) for t in self.tests] or [str(kit_root / "exercises" / c) for c in self.chapters]

    def options(self) -> list[str]:
        """The dtlab and pytest options of the run, without the tests it runs."""
        args = [f"--impl={self.impl}"] if self.impl is not None else []
        args += [f"--dtlab-exercise={e}" for e in self.exercises]
        if self.profile:
            args.append(f"--hypothesis-profile={self.profile}")
        if self.lang:
            args.append(f"--lang={self.lang}")
        if self.report:
            args.append(f"--dtlab-report={self.report}")
        if self.deadline:
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
