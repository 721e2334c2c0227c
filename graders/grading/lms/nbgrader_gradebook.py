"""``dtlab nbgrader grade COURSE ASSIGNMENT``: the sandboxed grader's scores, into nbgrader's gradebook.

The collected ``submitted/{student}/{assignment}/*.py`` files are graded as ``dtlab grade`` grades
them (resumable, sandboxed, hidden graders included; results and feedback in ``COURSE/dtlab/``),
then, through nbgrader's own API (:class:`nbgrader.api.Gradebook`), each exercise's points become
the ``auto_score`` of its task cell and its feedback the cell's ``auto_comment``. The notebook
plays no part: whatever a student did to it, the recorded scores are those of the ``.py`` files.

Task cells are never scored by nbgrader itself, so ``nbgrader autograde`` run again later keeps
these scores (it clears the comments: run this again, which resumes at once). A teacher's
manual score in formgrader still takes precedence, as nbgrader intends. A submission whose
grading stopped early, or that carries integrity flags, is marked as needing manual review.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from graders import catalog
from graders.grading.lms.nbgrader_course import COURSE_ID, task_cell_id
from graders.grading.reports import feedback
from graders.grading.result import StudentResult
from graders.words.messages import say


class GradebookMismatch(ValueError):
    """The gradebook's assignment is not a dtlab notebook of this chapter."""


def record(
    results: Iterable[StudentResult],
    chapter: str,
    assignment: str,
    db_url: str,
    course_id: str = COURSE_ID,
    lang: str = "en",
) -> list[str]:
    """Write each result's per-exercise scores and comments; returns the students recorded."""
    from nbgrader.api import Gradebook, MissingEntry

    recorded = []
    with Gradebook(db_url, course_id) as gb:
        try:
            notebooks = gb.find_assignment(assignment).notebooks
        except MissingEntry:
            raise GradebookMismatch(say("nbgrader:no assignment", assignment=assignment)) from None
        cells = _notebook_of_each_cell(notebooks, chapter, assignment)
        for result in results:
            gb.update_or_create_student(result.student_id)
            gb.update_or_create_submission(assignment, result.student_id)
            review = bool(result.error or feedback.integrity_flags(result))
            summary = "\n".join(feedback.summary_lines(result, lang))
            for index, exercise in enumerate(catalog.CHAPTERS[chapter].exercises):
                row = next((r for r in result.book.rows() if r.exercise == exercise.id), None)
                cell = task_cell_id(exercise.id)
                grade = gb.find_grade(cell, cells[cell], assignment, result.student_id)
                grade.auto_score = float(row.points if row else 0)
                grade.needs_manual_grade = review
                comment = gb.find_comment(cell, cells[cell], assignment, result.student_id)
                text = feedback.exercise_text(result, exercise.id, lang)
                comment.auto_comment = f"{summary}\n\n{text}" if index == 0 and summary else text
            gb.db.commit()
            recorded.append(result.student_id)
    return recorded


def _notebook_of_each_cell(notebooks, chapter: str, assignment: str) -> dict[str, str]:
    """``task cell id -> notebook name`` for every exercise of ``chapter``."""
    owner = {cell.name: notebook.name for notebook in notebooks for cell in notebook.task_cells}
    wanted = [task_cell_id(e.id) for e in catalog.CHAPTERS[chapter].exercises]
    missing = [cell for cell in wanted if cell not in owner]
    if missing:
        raise GradebookMismatch(
            say("nbgrader:no task cell", assignment=assignment, cells=", ".join(missing), chapter=chapter)
        )
    return {cell: owner[cell] for cell in wanted}


def default_db_url(course_dir: Path) -> str:
    """nbgrader's default gradebook of a course folder."""
    return f"sqlite:///{Path(course_dir).resolve() / 'gradebook.db'}"
