"""``dtlab nbgrader init COURSE_DIR``: an nbgrader course for the kit's chapters.

For each chapter, ``source/<chapter>/`` gets the stub modules, the chapter README and one
notebook, ``<chapter>.ipynb``: a read-only introduction, a locked set-up cell that grades the
``.py`` files next to the notebook (:class:`graders.grading.notebook.ChapterGrader`), and one locked,
graded cell per exercise worth the exercise's points, whose result is the points earned (so
nbgrader's gradebook, formgrader and ``generate_feedback`` see partial credit).

``nbgrader_config.py`` keeps nbgrader from overwriting the students' ``.py`` files at
autograde time (``Autograde.exclude_overwriting``), drops stderr outputs that are only torch or
gloo warnings (``IgnorePattern``: a cell with stderr output would otherwise score zero), and
gives the graded cells time to run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from graders import catalog
from graders.impl import KIT_ROOT

#: stderr outputs made only of library warnings (torch, gloo, Python's warnings module).
WARNING_PATTERN = r"^(?:\s*(?:\[W\d+ |\[Gloo\]|gloo|[\w./-]+:\d+: \w*Warning|warnings\.warn).*\n?)+$"

CONFIG = """# nbgrader configuration written by `dtlab nbgrader init`.
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "dtlab"
c.CourseDirectory.db_assignments = {assignments}

# Students write their code in these files; nbgrader must grade theirs, not the stubs.
c.Autograde.exclude_overwriting = {exclude}

# A graded cell with any stderr output scores zero: drop outputs that are only warnings.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = {pattern!r}

# The first graded cell grades the whole chapter (worker worlds, hypothesis properties).
c.ExecutePreprocessor.timeout = 1800
"""


def _cell(cell_type: str, source: str, grade_id: str, *, points: int | None = None) -> dict:
    meta = {
        "grade": points is not None,
        "grade_id": grade_id,
        "locked": True,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    cell = {"cell_type": cell_type, "metadata": {"nbgrader": meta}, "source": source}
    if cell_type == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def notebook(chapter: str) -> dict:
    info = catalog.CHAPTERS[chapter]
    files = ", ".join(f"`{m}.py`" for m in info.modules)
    intro = (
        f"# {chapter} · {info.title}\n\n"
        f"Write your code in {files}, next to this notebook (see `README.md`), then run every cell. "
        "The graded cells below are locked: each one runs the graders on your files and shows the "
        f"points you earned. Total: {info.points} points.\n\n"
        f"You can also grade from a terminal: `pytest exercises/{chapter}` in the dtlab repository."
    )
    cells = [
        _cell("markdown", intro, f"{chapter}_intro"),
        _cell(
            "code",
            "from graders.grading.notebook import ChapterGrader\n\n"
            f'grader = ChapterGrader("{chapter}")\ngrader.summary()',
            f"{chapter}_setup",
        ),
    ]
    for exercise in info.exercises:
        cells.append(_cell("markdown", f"## {exercise.id}: {exercise.title}", f"{_id(exercise.id)}_title"))
        cells.append(
            _cell("code", f'grader.points("{exercise.id}")', _id(exercise.id), points=exercise.points)
        )
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _id(exercise_id: str) -> str:
    return exercise_id.replace(".", "_")


def init(course_dir: Path, chapters: list[str] | None = None, kit_root: Path = KIT_ROOT) -> list[Path]:
    """Lay out the course; returns the notebooks written."""
    course_dir = Path(course_dir)
    chapters = chapters or list(catalog.CHAPTERS)
    written = []
    for chapter in chapters:
        info = catalog.CHAPTERS[chapter]
        source = course_dir / "source" / chapter
        source.mkdir(parents=True, exist_ok=True)
        for module in info.modules:
            shutil.copyfile(kit_root / "exercises" / chapter / f"{module}.py", source / f"{module}.py")
        readme = kit_root / "exercises" / chapter / "README.md"
        if readme.exists():
            shutil.copyfile(readme, source / "README.md")
        path = source / f"{chapter}.ipynb"
        path.write_text(json.dumps(notebook(chapter), indent=1, ensure_ascii=False) + "\n")
        written.append(path)
    exclude = {c: [f"{m}.py" for m in catalog.CHAPTERS[c].modules] for c in chapters}
    assignments = [{"name": c} for c in chapters]
    (course_dir / "nbgrader_config.py").write_text(
        CONFIG.format(assignments=assignments, exclude=exclude, pattern=WARNING_PATTERN)
    )
    return written
