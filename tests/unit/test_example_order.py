"""Every grader's explicit examples run smallest first, so the one a student is shown is the simplest."""

import importlib.util
from pathlib import Path

import pytest

from graders.impl import KIT_ROOT


def size(case) -> tuple:
    """Ranks first, then the work on them (pipeline stages, microbatches, elements)."""
    return (
        getattr(case, "world_size", 1),
        getattr(case, "p", 0),
        getattr(case, "m", 0),
        getattr(case, "numel", 0) if hasattr(case, "inputs") else 0,
    )


def _graders():
    files = sorted(KIT_ROOT.glob("exercises/ch*/test_*.py")) + sorted(KIT_ROOT.glob("hidden/ch*/test_*.py"))
    for path in files:
        yield pytest.param(path, id=str(path.relative_to(KIT_ROOT)))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"order_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", list(_graders()))
def test_explicit_examples_run_smallest_first(path):
    for name, test in vars(_load(path)).items():
        if not name.startswith("test_") or getattr(test, "hypothesis", None) is None:
            continue
        # hypothesis runs the examples added last (the top decorator) first
        run = reversed(getattr(test, "hypothesis_explicit_examples", []))
        sizes = [size(e.kwargs["case"]) for e in run if "case" in e.kwargs]
        assert sizes == sorted(sizes), f"{name}: examples run in the order {sizes}; put the smallest on top"
