"""The Codespaces dev container of a GitHub Classroom release (``.devcontainer/devcontainer.json``):
Python 3.11, the set-up the release's README gives, VS Code's Python extension and its pytest
discovery of ``exercises/``; valid against the dev container schema.

The schema of the Dev Container specification (``schemas/devContainer.base.schema.json`` of the
devcontainers/spec repository) ships in no package of the registries the kit installs from, so it
is not part of the kit: set ``DTLAB_DEVCONTAINER_SCHEMA`` to a copy of it and the file is
validated against it too. :data:`PROPERTIES` is the kit's own reading of the specification, for
the properties the kit writes, and is always checked."""

import json
import os
from pathlib import Path

import pytest

from graders.authoring import devcontainer
from graders.impl import KIT_ROOT


@pytest.fixture(scope="module")
def jsonschema():
    """Imported by the tests that use it (about 3 s: its URI grammars), not by every session
    that collects this module and deselects them."""
    return pytest.importorskip("jsonschema")


_COMMAND = {
    "type": ["string", "array", "object"],
    "items": {"type": "string"},
    "additionalProperties": {"type": ["string", "array"], "items": {"type": "string"}},
}
#: the properties the kit writes, with the types the specification gives them
PROPERTIES = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["image"],
    "properties": {
        "name": {"type": "string"},
        "image": {"type": "string", "minLength": 1},
        "postCreateCommand": _COMMAND,
        "customizations": {
            "type": "object",
            "properties": {
                "vscode": {
                    "type": "object",
                    "properties": {
                        "extensions": {
                            "type": "array",
                            "items": {"type": "string", "pattern": r"^[\w-]+\.[\w-]+$"},
                        },
                        "settings": {"type": "object"},
                    },
                    "additionalProperties": False,
                }
            },
        },
    },
    "additionalProperties": False,
}


def written() -> dict:
    return json.loads(devcontainer.text())


def test_a_codespace_gets_python_311_and_the_readmes_set_up():
    config = written()
    assert config["image"] == "mcr.microsoft.com/devcontainers/python:1-3.11-bookworm"
    assert config["postCreateCommand"] == "bash scripts/setup.sh"
    readme = (KIT_ROOT / "graders" / "authoring" / "README.student.md").read_text(encoding="utf-8")
    assert f"```bash\n{config['postCreateCommand']}\n" in readme, "the README's own set-up command"
    assert (KIT_ROOT / "scripts" / "setup.sh").is_file()


def test_vs_code_finds_the_graders_of_exercises_with_pytest():
    vscode = written()["customizations"]["vscode"]
    assert "ms-python.python" in vscode["extensions"]
    settings = vscode["settings"]
    assert settings["python.testing.pytestEnabled"] is True
    assert settings["python.testing.unittestEnabled"] is False
    assert settings["python.testing.pytestArgs"] == ["exercises"]
    assert settings["python.defaultInterpreterPath"] == "${containerWorkspaceFolder}/.venv/bin/python"
    assert any((KIT_ROOT / "exercises").glob("ch*/test_*.py")), "what the test panel discovers"


def test_valid_for_the_properties_the_kit_writes(jsonschema):
    jsonschema.Draft202012Validator.check_schema(PROPERTIES)
    jsonschema.Draft202012Validator(PROPERTIES).validate(written())
    broken = written() | {"postCreateCommand": 3}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(PROPERTIES).validate(broken)


@pytest.mark.skipif(
    not os.environ.get("DTLAB_DEVCONTAINER_SCHEMA"),
    reason="DTLAB_DEVCONTAINER_SCHEMA names no copy of devContainer.base.schema.json",
)
def test_valid_against_the_dev_container_schema(jsonschema):
    schema = json.loads(Path(os.environ["DTLAB_DEVCONTAINER_SCHEMA"]).read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    validator(schema).validate(written())
    with pytest.raises(jsonschema.ValidationError):
        validator(schema).validate(written() | {"postCreateCommand": 3})
