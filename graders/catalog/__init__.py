"""Every exercise of the kit, looked up: declared once each, in its chapter's own folder
(``graders/chapters/chN/chapter.py``, found by :mod:`graders.catalog.discovery`).

An exercise is one function or class a student writes: the file it lives in (``module``), its
name (``symbol``), what it may not call (``banned``) and its points. The points are split into
named parts, each graded by tests marked ``@exercise("ch2.ring_all_reduce", part="ring")``, so
a submission can earn partial credit: right values but the wrong communication pattern, say.
Worker tasks name only their exercise (``@task("ch2.ring_all_reduce")``); the static scan, the
worker's import and the guard all read the rest from here.

``banned`` holds ``torch.distributed`` function names (``"all_reduce"``), dotted names of
anything else (``"torch.optim.AdamW"``), and ``"package.*"`` for a whole module tree.
"""

from __future__ import annotations

from graders.catalog.bans import (  # noqa: F401  (the catalog's vocabulary, read through it)
    AMP_SCALING,
    AUTOGRAD_CALLS,
    C10D_OP_NAMESPACES,
    COLLECTIVES,
    DOOR_OBJECTS,
    DOORS,
    NATIVE_COLLECTIVE_OBJECTS,
    P2P_ONLY,
    PROCESS_GROUP_METHODS,
    SDPA,
    SIDE_CHANNEL_OBJECTS,
    TORCH_CHECKPOINT,
    TORCH_DDP,
    TORCH_FSDP,
    TORCH_OPTIMIZERS,
    TORCH_PIPELINING,
    TORCH_TENSOR_PARALLEL,
    TORCH_ZERO,
    ZERO_BANNED,
)
from graders.catalog.discovery import declared_chapters
from graders.catalog.entries import Chapter, Exercise, exercises_of  # noqa: F401  (re-exported)

CHAPTERS: dict[str, Chapter] = {c.id: c for c in declared_chapters()}
EXERCISES: dict[str, Exercise] = {e.id: e for c in CHAPTERS.values() for e in c.exercises}

#: Parts that hidden graders (``hidden/chN/test_hidden_*.py``) grade too, at grading time only.
#: The student release has no hidden graders, so a local run names these parts as not fully
#: checked; ``tests/chapters/test_hidden.py`` keeps the chapters' declarations and the hidden graders in
#: agreement.
HIDDEN_PARTS: dict[str, tuple[str, ...]] = {
    f"{c.id}.{name}": parts for c in CHAPTERS.values() for name, parts in c.hidden.items()
}


def exercise(exercise_id: str) -> Exercise:
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        raise KeyError(
            f"unknown exercise {exercise_id!r}: declare it in graders/catalog/__init__.py"
        ) from None
