"""The dev container of a GitHub Classroom release: ``.devcontainer/devcontainer.json``.

``dtlab release OUT --github-classroom`` writes it beside the workflow, so that a student can open
the assignment in a Codespace (or in VS Code's Dev Containers) and start at once: Python 3.11,
then ``bash scripts/setup.sh`` as the release's README says (a ``.venv`` with the pinned CPU
build of torch and the kit), VS Code's Python extension on that ``.venv``, and its test panel
finding the graders of ``exercises/`` with pytest.
"""

from __future__ import annotations

import json

#: where it is, in the release
PATH = ".devcontainer/devcontainer.json"
#: Microsoft's Python dev container image (Debian bookworm); the release needs Python ≥ 3.11
IMAGE = "mcr.microsoft.com/devcontainers/python:1-3.11-bookworm"
#: what the release's README has a student run once
SETUP = "bash scripts/setup.sh"
VENV_PYTHON = "${containerWorkspaceFolder}/.venv/bin/python"


def config() -> dict:
    """The dev container, as the JSON object ``devcontainer.json`` holds."""
    return {
        "name": "dtlab",
        "image": IMAGE,
        "postCreateCommand": SETUP,
        "customizations": {
            "vscode": {
                "extensions": ["ms-python.python"],
                "settings": {
                    "python.defaultInterpreterPath": VENV_PYTHON,
                    "python.terminal.activateEnvironment": True,
                    "python.testing.pytestEnabled": True,
                    "python.testing.unittestEnabled": False,
                    "python.testing.pytestArgs": ["exercises"],
                },
            }
        },
    }


def text() -> str:
    """``devcontainer.json``'s text (plain JSON: every reader of JSON with comments reads it)."""
    return json.dumps(config(), indent=2) + "\n"
