"""Every environment variable is declared once (graders/config.py), read when asked, documented."""

import re

from graders import config
from graders.impl import KIT_ROOT

NAME = re.compile(r"\bDTLAB_[A-Z_]+\b")


def _kit_files():
    for folder in ("graders", "scripts", ".ci"):
        for path in sorted((KIT_ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".sh", "") and "__pycache__" not in path.parts:
                yield path


def test_every_variable_the_kit_reads_is_declared():
    used = {name for path in _kit_files() for name in NAME.findall(path.read_text(errors="replace"))}
    assert used <= set(config.VARIABLES), sorted(used - set(config.VARIABLES))


def test_only_the_config_module_reads_them():
    for path in (KIT_ROOT / "graders").rglob("*.py"):
        if path.name == "config.py" and path.parent.name == "graders":
            continue
        text = path.read_text()
        assert not re.search(r"environ(\.get)?[\[(]\s*[\"']DTLAB_", text), path


def test_the_docs_document_every_variable():
    readme = (KIT_ROOT / "docs" / "environment.md").read_text()
    for name in config.VARIABLES:
        assert f"| `{name}` |" in readme, f"docs/environment.md's table of environment variables lacks {name}"


def test_values_are_read_when_asked_not_at_import(monkeypatch):
    monkeypatch.setenv("DTLAB_DEADLINE", "2.5")
    monkeypatch.setenv("DTLAB_SANDBOX", "off")
    assert config.deadline() == 2.5 and config.sandbox_mode() == "off"
    monkeypatch.delenv("DTLAB_DEADLINE")
    assert config.deadline() == 10.0


def test_the_notebook_profile_follows_nbgrader(monkeypatch):
    monkeypatch.delenv("DTLAB_NOTEBOOK_PROFILE", raising=False)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert config.notebook_profile() == "grading"
    monkeypatch.delenv("NBGRADER_EXECUTION")
    assert config.notebook_profile() == "student"
    monkeypatch.setenv("DTLAB_NOTEBOOK_PROFILE", "ci")
    assert config.notebook_profile() == "ci"
