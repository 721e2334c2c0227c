"""The README is a newcomer's five minutes, and every link in it and in the docs leads somewhere.

The site itself (``mkdocs build --strict``, run by CI) checks the links between the pages of
``docs/`` and their anchors; this checks what the site does not see: the README's own links, and
that every page is in the site's navigation.
"""

import re

import yaml

from graders.impl import KIT_ROOT

README = KIT_ROOT / "README.md"
DOCS = KIT_ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: the rest belongs in docs/"


def test_every_link_of_the_readme_leads_to_a_file():
    for target, _ in LINK.findall(README.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://")):
            continue
        assert (KIT_ROOT / target).exists(), f"README.md links to {target}, which does not exist"


def test_every_page_is_in_the_navigation():
    config = yaml.safe_load((KIT_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for value in node.values():
                yield from pages(value)
        elif isinstance(node, list):
            for value in node:
                yield from pages(value)

    listed = set(pages(config["nav"]))
    present = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert sorted(present - listed) == [], "pages missing from mkdocs.yml's nav"
    assert sorted(listed - present) == [], "nav entries without a page"
