"""Grading from a notebook: what the locked cells of a dtlab nbgrader assignment call.

The student's code stays in the chapter's ``.py`` files next to the notebook (worker processes
import it from there; they could not import functions defined in a notebook). The first locked
cell creates a :class:`ChapterGrader`, which grades those files once, in the same sandbox as
``dtlab grade`` (with the hidden graders where the kit has them); each graded cell then calls
:meth:`ChapterGrader.points`, which prints the exercise's feedback and returns its points, so
nbgrader records partial credit (a cell's numeric result is its score). Nothing is written to
stderr, which nbgrader would count as a failed cell.

The profile is ``grading`` under ``nbgrader autograde`` and ``student`` otherwise
(``DTLAB_NOTEBOOK_PROFILE`` overrides both).
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from pathlib import Path

from graders import catalog, config
from graders.i18n import t
from graders.plugin.results import PASSED


class ChapterGrader:
    def __init__(self, chapter: str, folder: str | os.PathLike | None = None, lang: str = "en") -> None:
        if chapter not in catalog.CHAPTERS:
            raise KeyError(f"unknown chapter {chapter!r}")
        self.chapter = chapter
        self.folder = Path(folder or os.getcwd())
        self.lang = lang
        self.result = None

    @property
    def profile(self) -> str:
        return config.notebook_profile()

    def grade(self):
        """Grade the chapter's files in this folder (once); returns the student's result."""
        if self.result is None:
            from graders.grading import intake
            from graders.grading.batch import LocalGrader
            from graders.grading.result import Settings

            modules = catalog.CHAPTERS[self.chapter].modules
            staged = intake.stage(
                intake.folder_entries(self.folder), "notebook", self.chapter, modules, str(self.folder)
            )
            with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                grader = LocalGrader(jobs=1)
                try:
                    self.result = grader.grade(staged, Settings(self.chapter, self.profile))
                finally:
                    grader.close()
        return self.result

    def summary(self) -> None:
        """Print the points table (and why grading stopped, if it did)."""
        result = self.grade()
        print(result.book.render(self.lang))
        if result.error:
            print(f"\ngrading stopped early: {result.error.splitlines()[0]}")
        for note in result.notes:
            print(f"note: {note}")

    def points(self, exercise_id: str) -> float:
        """Print the feedback of ``exercise_id`` and return its points (nbgrader's partial credit)."""
        entry = catalog.exercise(exercise_id)
        result = self.grade()
        row = next((r for r in result.book.rows() if r.exercise == exercise_id), None)
        if row is None:
            print(f"{exercise_id}: not graded")
            return 0.0
        print(f"{exercise_id} · {entry.title}: {row.points}/{row.max_points} · {t(row.status, self.lang)}")
        for part in row.parts:
            if part.status != PASSED and part.message and row.status != "not started":
                print(f"\n[{part.part}] {part.message.strip()}")
        return float(row.points)
