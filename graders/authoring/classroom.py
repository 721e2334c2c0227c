"""The GitHub Classroom workflow of a release: ``.github/workflows/classroom.yml``.

``dtlab release OUT --github-classroom`` writes it, and the release becomes a template repository
for a Classroom assignment. It follows Classroom's own autograding convention: one job on every
push, set-up steps, then one ``classroom-resources/autograding-command-grader@v1`` step per exercise
part (``test-name``, ``setup-command``, ``command``, ``timeout`` in minutes, ``max-score`` = the
part's points), and ``classroom-resources/autograding-grading-reporter@v1``, which reads each
step's ``result`` output from ``<STEP ID>_RESULTS`` and sends the total to Classroom.

A step's command is ``dtlab part EXERCISE PART --profile grading --gradebooks DIR``
(:mod:`graders.student.part`): it exits 0 only when the part earned all its points, so the
Classroom score is the sum of the parts' points, the kit's score of the public graders (the
release has no hidden graders). The first step of a chapter grades the whole chapter and keeps
its gradebook in ``DIR``, outside the repository (a file committed there could not stand in for
it); the chapter's other steps read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from graders import catalog

#: where the workflow is, in the release
WORKFLOW = ".github/workflows/classroom.yml"
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
#: the profile the steps grade with: the teacher's (``dtlab grade``'s default)
PROFILE = "grading"
#: where the steps keep each chapter's gradebook: the runner's home, outside the repository
GRADEBOOKS = "~/.cache/dtlab/classroom"
#: a step's limit in minutes: the first step of a chapter grades the whole chapter on a slow
#: runner; longer than ``dtlab part``'s own limit (30 min), so its message is what the log shows
TIMEOUT_MIN = 40
PYTHON = "3.11"
#: the CPU wheels of torch (``scripts/install_torch.py`` takes them from here)
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
#: Classroom's own commits (the starter code it pushes) run nothing
NOT_CLASSROOM_BOT = "github.actor != 'github-classroom[bot]'"


@dataclass(frozen=True)
class Step:
    """One autograding test: a part of an exercise, worth its points."""

    exercise: str  # ch2.broadcast
    part: str  # tree
    points: int

    @property
    def name(self) -> str:
        return f"{self.exercise} {self.part}"

    @property
    def id(self) -> str:
        """The step's id: letters, digits, ``-`` and ``_`` (the reporter reads ``<ID>_RESULTS``)."""
        return f"{self.exercise.replace('.', '-')}-{self.part}"

    @property
    def command(self) -> str:
        return f"dtlab part {self.exercise} {self.part} --profile {PROFILE} --gradebooks {GRADEBOOKS}"


def steps(chapters: list[str] | None = None) -> list[Step]:
    """One step per part of every exercise of ``chapters`` (default: every chapter), in catalog order."""
    chosen = chapters or list(catalog.CHAPTERS)
    return [
        Step(exercise.id, part, points)
        for chapter in chosen
        for exercise in catalog.CHAPTERS[chapter].exercises
        for part, points in exercise.parts.items()
    ]


def _result_of(step: Step) -> str:
    return "${{ steps." + step.id + ".outputs.result }}"


def _q(text: str) -> str:
    """``text`` as a double-quoted YAML scalar (JSON's quoting is YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def workflow(chapters: list[str] | None = None) -> str:
    """The text of ``classroom.yml`` for ``chapters`` (default: every chapter)."""
    chosen = chapters or list(catalog.CHAPTERS)
    graded = steps(chosen)
    points = sum(step.points for step in graded)
    lines = [
        f"# GitHub Classroom autograding of {', '.join(chosen)} ({len(graded)} parts, {points} points),",
        "# written by `dtlab release --github-classroom`. One step per exercise part, graded with",
        f"# the {PROFILE} profile by the public graders: a step scores its part's points when its",
        "# command exits 0.",
        "name: Autograding Tests",
        '"on":',
        "  - push",
        "  - workflow_dispatch",
        "  - repository_dispatch",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        f"    if: {_q(NOT_CLASSROOM_BOT)}",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v5",
        f"      - name: {_q('Set up Python ' + PYTHON)}",
        "        uses: actions/setup-python@v6",
        "        with:",
        f"          python-version: {_q(PYTHON)}",
        "      - name: Install torch (CPU build) and dtlab",
        "        env:",
        f"          DTLAB_TORCH_INDEX: {_q(TORCH_INDEX)}",
        "        run: |",
        "          python scripts/install_torch.py install",
        "          python -m pip install --disable-pip-version-check -e .",
        "          python scripts/install_torch.py verify",
    ]
    for step in graded:
        lines += [
            f"      - name: {_q(step.name)}",
            f"        id: {step.id}",
            f"        uses: {GRADER}",
            "        with:",
            f"          test-name: {_q(step.name)}",
            '          setup-command: ""',
            f"          command: {_q(step.command)}",
            f"          timeout: {TIMEOUT_MIN}",
            f"          max-score: {step.points}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        f"        uses: {REPORTER}",
        "        env:",
        *(f"          {step.id.upper()}_RESULTS: {_q(_result_of(step))}" for step in graded),
        "        with:",
        f"          runners: {','.join(step.id for step in graded)}",
    ]
    return "\n".join(lines) + "\n"
