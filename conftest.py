"""Loaded first by any ``pytest`` run in this repository: stop at once, saying what to do, when the
Python running pytest is not the kit's virtual environment (``No module named 'graders'``)."""

import os
import shlex
import sys

try:
    import hypothesis  # noqa: F401
    import torch  # noqa: F401

    import graders  # noqa: F401
except ImportError as exc:
    venv = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".venv"))
    args = shlex.join(sys.argv[1:]) or "exercises/ch2"
    if os.path.exists(os.path.join(venv, "bin", "python")):
        todo = (
            f"The kit is installed in the virtual environment {venv}: activate it first,\n"
            f"    source {venv}/bin/activate && pytest {args}\n"
            f"or run its pytest directly:\n"
            f"    {venv}/bin/pytest {args}"
        )
    else:
        setup = os.path.join(os.path.dirname(venv), "scripts", "setup.sh")
        todo = (
            f"There is no {venv} yet: create it (Python >= 3.11, torch, the kit), then use its pytest:\n"
            f"    bash {setup} && {venv}/bin/pytest {args}"
        )
    print(
        f"dtlab: this pytest runs on {sys.executable}, which cannot import the kit ({exc}).\n{todo}",
        file=sys.stderr,
    )
    raise SystemExit(4) from None  # not an Exception: pytest lets it through, with no traceback

#: the kit's test tiers (pyproject.toml's markers; scripts/test.sh runs them)
HEAVY = ("many_submissions", "slow")
GRADERS = "graders"
#: what only a worker world gives a test: a test that asks for it is in the graders tier
WORLD_FIXTURES = frozenset({"harness"})


def _marked(item, names) -> bool:
    return any(item.get_closest_marker(name) for name in names)


def pytest_collection_modifyitems(config, items):
    """Every grader of ``exercises/`` and ``hidden/``, and every test that asks for a worker world,
    is in the graders tier. A bare ``pytest`` (no path, no ``-m``) runs the fast tier only: the
    kit's own tests that start no world and copy nothing (about a minute on 2 cores)."""
    import pytest

    root = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        place = os.path.relpath(str(item.fspath), root).split(os.sep)[0]
        if place in ("exercises", "hidden") or WORLD_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.graders)
    bare = config.args_source == pytest.Config.ArgsSource.TESTPATHS  # no path given
    if not bare or config.option.markexpr or os.path.realpath(str(config.rootpath)) != os.path.realpath(root):
        return
    fast = [item for item in items if not _marked(item, (GRADERS, *HEAVY))]
    config.hook.pytest_deselected(items=[item for item in items if item not in fast])
    items[:] = fast
