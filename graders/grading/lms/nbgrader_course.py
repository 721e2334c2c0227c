"""``dtlab nbgrader init COURSE_DIR``: an nbgrader course for the kit's chapters.

For each chapter, ``source/<chapter>/`` gets the stub modules, the chapter README and one
notebook, ``<chapter>.ipynb``: a read-only introduction, a locked cell that grades the ``.py``
files next to the notebook while the student works (:class:`graders.grading.lms.notebook.ChapterGrader`)
and, per exercise, a locked *task* cell worth the exercise's points and a locked cell that shows
the exercise's feedback.

No score comes from the notebook. Notebook cells run in the student's kernel, outside any
sandbox, where one added cell could make every graded cell say "full marks"; so the points are
task cells, which nbgrader never scores itself, ``nbgrader autograde`` runs no cell at all
(``Execute.enabled = False`` in ``nbgrader_config.py``: no student code runs outside the
sandbox), and ``dtlab nbgrader grade`` (:mod:`graders.grading.lms.nbgrader_gradebook`) grades the
collected ``.py`` files in the sandbox and writes every task cell's score and comment into
nbgrader's gradebook through nbgrader's API. Until it has run, the gradebook says the
submissions need grading: nobody gets points by default.

``nbgrader_config.py`` also keeps nbgrader from overwriting the students' ``.py`` files at
autograde time (``Autograde.exclude_overwriting``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from graders import catalog
from graders.impl import KIT_ROOT

COURSE_ID = "dtlab"

CONFIG = """# nbgrader configuration written by `dtlab nbgrader init`.
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = {course_id!r}

# Students write their code in these files; nbgrader must keep theirs, not the stubs.
c.Autograde.exclude_overwriting = {exclude}

# `nbgrader autograde` runs no notebook cell: cells would run student code outside the sandbox,
# and no score comes from them. The scores are written by `dtlab nbgrader grade COURSE ASSIGNMENT`,
# which grades the collected .py files in dtlab's sandbox: run it after every `nbgrader autograde`.
c.Execute.enabled = False
"""


def _cell(cell_type: str, source: str, grade_id: str, *, points: int | None = None) -> dict:
    """A locked cell; with ``points``, a task cell (nbgrader's "manually graded task")."""
    meta = {
        "grade": False,
        "grade_id": grade_id,
        "locked": True,
        "schema_version": 3,
        "solution": False,
        "task": points is not None,
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
        f"Write your code in {files}, next to this notebook (see `README.md`), then run every cell: "
        "the cells below run the graders on your files and show what passes. Total: "
        f"{info.points} points.\n\n"
        "Your score is not computed in this notebook: after you submit, your teacher grades the same "
        f"files with the same graders (and hidden ones). You can also grade from a terminal: "
        f"`pytest exercises/{chapter}` in the dtlab repository."
    )
    cells = [
        _cell("markdown", intro, f"{chapter}_intro"),
        _cell(
            "code",
            "from graders.grading.lms.notebook import ChapterGrader\n\n"
            f'grader = ChapterGrader("{chapter}")\ngrader.summary()',
            f"{chapter}_setup",
        ),
    ]
    for exercise in info.exercises:
        task = (
            f"## {exercise.id}: {exercise.title}\n\n"
            f"{exercise.points} point(s), graded from your `{exercise.module}.py` by `dtlab nbgrader grade`."
        )
        cells.append(_cell("markdown", task, task_cell_id(exercise.id), points=exercise.points))
        cells.append(_cell("code", f'grader.show("{exercise.id}")', f"{task_cell_id(exercise.id)}_feedback"))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def task_cell_id(exercise_id: str) -> str:
    """The task cell's ``grade_id`` (nbgrader's name of the grade): ``ch2_ring_shift``."""
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
    (course_dir / "nbgrader_config.py").write_text(CONFIG.format(course_id=COURSE_ID, exclude=exclude))
    return written
