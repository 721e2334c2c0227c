"""Every page a student or lecturer reads has its Vietnamese twin, shaped as the English one.

The twins: each chapter's ``exercises/chN/README.md`` and ``README.vi.md`` (linked both ways),
and the documentation's reader pages, ``docs/X.md`` and ``docs/vi/X.md`` (both in the site's
navigation). A twin has the same headings (levels, in order), the same tables (rows and
columns) and the same fenced code blocks (in order, with their info strings), so that neither
can drift from the other unnoticed.
"""

from __future__ import annotations

import re

import pytest
import yaml

from graders.catalog import CHAPTERS
from graders.impl import KIT_ROOT

#: the pages a student or a lecturer reads, each with a Vietnamese twin in docs/vi/
READER_PAGES = (
    "index",
    "setup",
    "course",
    "self-study",
    "students",
    "teachers",
    "release",
    "grading",
    "sandbox",
    "lms",
    "class-report",
    "gpus",
    "how-it-works",
)
FENCE = re.compile(r"^\s*```(.*)$")


def _shape(text: str) -> dict:
    """The headings' levels, the tables' (rows, columns) and the code blocks' info strings."""
    headings, tables, fences = [], [], []
    in_code, table_rows = False, []
    for line in [*text.splitlines(), ""]:
        fence = FENCE.match(line)
        if fence:
            if not in_code:
                fences.append(fence.group(1).strip())
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.lstrip().startswith("|"):
            table_rows.append(line.strip())
            continue
        if table_rows:
            separator = next((r for r in table_rows if set(r) <= set("|-: ")), table_rows[0])
            tables.append((len(table_rows), separator.strip("|").count("|") + 1))
            table_rows = []
        heading = re.match(r"^(#{1,6}) ", line)
        if heading:
            headings.append(len(heading.group(1)))
    return {"headings": headings, "tables": tables, "code blocks": fences}


#: the chapters with a README (a new chapter's template may have none yet)
WITH_README = [c for c in CHAPTERS if (KIT_ROOT / "exercises" / c / "README.md").exists()]


def _twins() -> list[tuple[str, str]]:
    chapters = [(f"exercises/{c}/README.md", f"exercises/{c}/README.vi.md") for c in WITH_README]
    return [*chapters, *((f"docs/{page}.md", f"docs/vi/{page}.md") for page in READER_PAGES)]


@pytest.mark.parametrize("english, vietnamese", _twins(), ids=lambda p: p)
def test_the_vietnamese_twin_has_the_english_pages_shape(english, vietnamese):
    assert (KIT_ROOT / vietnamese).is_file(), f"{english} has no Vietnamese twin {vietnamese}"
    theirs = _shape((KIT_ROOT / english).read_text(encoding="utf-8"))
    ours = _shape((KIT_ROOT / vietnamese).read_text(encoding="utf-8"))
    for what in theirs:
        assert ours[what] == theirs[what], f"{vietnamese}: its {what} differ from {english}'s"


@pytest.mark.parametrize("chapter", WITH_README)
def test_a_chapters_readmes_link_to_each_other(chapter):
    folder = KIT_ROOT / "exercises" / chapter
    assert "](README.vi.md)" in (folder / "README.md").read_text(encoding="utf-8").split("\n\n")[0]
    assert "](README.md)" in (folder / "README.vi.md").read_text(encoding="utf-8").split("\n\n")[0]


def test_the_vietnamese_pages_are_in_the_sites_navigation():
    config = yaml.safe_load((KIT_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    vietnamese = next(entry["Tiếng Việt"] for entry in config["nav"] if "Tiếng Việt" in entry)

    def pages(node):  # a section (a list of entries) or a page's path
        if isinstance(node, str):
            return {node}
        entries = node if isinstance(node, list) else [node]
        return {path for entry in entries for value in entry.values() for path in pages(value)}

    assert pages(vietnamese) == {f"vi/{page}.md" for page in READER_PAGES}


def test_the_shape_sees_what_it_compares():
    text = "# T\n\n## A\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```bash\nls\n# no heading\n```\n"
    assert _shape(text) == {"headings": [1, 2], "tables": [(3, 2)], "code blocks": ["bash"]}
