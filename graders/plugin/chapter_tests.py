"""A chapter's grader tests as plain functions, by exercise and part: what the mutants, the red
team and the diagnostic battery run without a pytest session of their own."""

from __future__ import annotations

from pathlib import Path

from graders.impl import KIT_ROOT


def exercise_tests(
    chapter: str, kit_root: Path = KIT_ROOT, *, profile: str | None = None, files: list[Path] | None = None
) -> dict[tuple[str, str], list]:
    """The chapter's grader test functions, by (exercise, part), imported from exercises/chN
    (or from ``files``, copies of them).

    These are private copies of the tests, set to skip hypothesis's shrink phase: a mutant
    only has to be caught, and shrinking a multi-step training run costs dozens of runs. They
    draw as many examples as ``profile`` says (a registered profile's name), else the active
    one: the modules are imported while that profile, less shrinking, is loaded, so ``@given``
    takes its settings, and a part that draws a share of the examples (``fewer_examples``)
    draws that share of its examples.
    """
    import importlib.util

    from hypothesis import Phase, settings

    from graders.plugin.marker import MARKER

    active = settings.get_current_profile_name()
    base = settings.get_profile(profile) if profile else settings.default
    phases = [p for p in base.phases if p != Phase.shrink]
    settings.register_profile(_NO_SHRINK, settings(base, phases=phases))
    settings.load_profile(_NO_SHRINK)
    try:
        found: dict[tuple[str, str], list] = {}
        paths = files if files is not None else (kit_root / "exercises" / chapter).glob("test_*.py")
        for path in sorted(paths):
            name = f"dtlab_graders_{chapter}_{path.stem}"
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            for attr, fn in vars(module).items():
                if not attr.startswith("test_"):
                    continue
                for mark in getattr(fn, "pytestmark", []):
                    if mark.name == MARKER:
                        found.setdefault(tuple(mark.args), []).append(fn)
    finally:
        settings.load_profile(active)
    return found


_NO_SHRINK = "dtlab-no-shrink"
