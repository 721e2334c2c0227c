"""Every word the kit's HTML pages say (``t("key")`` in ``graders/grading/reports/templates/``, and
``t("key", ...)`` in the modules that fill them) is a kit word in every language."""

from __future__ import annotations

import ast
from pathlib import Path

import jinja2.nodes

from graders.grading.reports import pages
from graders.words.vocabulary import LANGS, word

REPORTS = Path(pages.__file__).parent


def _template_keys() -> set[str]:
    environment = pages.environment()
    keys = set()
    for name in environment.list_templates():
        tree = environment.parse(environment.loader.get_source(environment, name)[0])
        for call in tree.find_all(jinja2.nodes.Call):
            if isinstance(call.node, jinja2.nodes.Name) and call.node.name == "t" and call.args:
                assert isinstance(call.args[0], jinja2.nodes.Const), f"{name}: t() of a key built at run time"
                keys.add(call.args[0].value)
    return keys


def _module_keys() -> set[str]:
    keys = set()
    for path in REPORTS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t":
                if node.args and isinstance(node.args[0], ast.Constant):
                    keys.add(node.args[0].value)
    return keys


def test_every_word_a_page_says_is_in_every_language():
    keys = _template_keys()
    assert {"report:class report", "similarity:title"} <= keys  # the walk finds them
    keys |= _module_keys()
    assert sorted(key for key in keys if word(key) is None) == [], "said by a page, not a kit word"
    for key in keys:
        assert set(word(key)) == set(LANGS), f"word:{key} lacks a language"
