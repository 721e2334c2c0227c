"""Grading from a notebook: what the locked cells of a dtlab nbgrader assignment call.

The student's code stays in the chapter's ``.py`` files next to the notebook (worker processes
import it from there; they could not import functions defined in a notebook). The first locked
cell creates a :class:`ChapterGrader`, which grades those files once, in the same sandbox as
``dtlab grade`` (with the hidden graders where the kit has them); each exercise's cell then calls
:meth:`ChapterGrader.show`, which prints the exercise's feedback. These cells only inform the
student: nbgrader records no score from them (the kernel is the student's, and ``nbgrader
autograde`` does not run them); the scores come from ``dtlab nbgrader grade``.

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
from graders.words.vocabulary import LANGS, t


class ChapterGrader:
    def __init__(
        self, chapter: str, folder: str | os.PathLike | None = None, lang: str | None = None
    ) -> None:
        """``lang``: the feedback's language (default: ``DTLAB_LANG``'s, English if it names none)."""
        if chapter not in catalog.CHAPTERS:
            raise KeyError(f"unknown chapter {chapter!r}")
        self.chapter = chapter
        self.folder = Path(folder or os.getcwd())
        self.lang = lang or (config.lang() if config.lang() in LANGS else "en")
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
                    self.result = grader.grade(
                        staged, Settings.of(self.chapter, self.profile, lang=self.lang)
                    )
                finally:
                    grader.close()
        return self.result

    def summary(self) -> None:
        """Print the points table (and why grading stopped, if it did)."""
        result = self.grade()
        print(result.book.render(self.lang))
        if result.error:
            print("\n" + t("notebook:stopped early", self.lang, why=result.error.splitlines()[0]))
        for note in result.notes:
            print(t("notebook:note", self.lang, note=note))

    def show(self, exercise_id: str) -> None:
        """Print the feedback of ``exercise_id`` (its score is recorded by ``dtlab nbgrader grade``)."""
        from graders.grading.reports.feedback import exercise_text

        print(exercise_text(self.grade(), exercise_id, self.lang))
