"""Every number a message prints reads as its language writes numbers (issue 47 §4).

English is what ``str.format`` prints (``12,345``, ``0.25``); Vietnamese groups with a dot and
writes a decimal comma (``12.345``, ``0,25``): a Vietnamese reader takes ``1,024`` for one point
zero two four. A count a sentence states once is written the language's way in its catalogue
(``7.5B parameters`` / ``7,5 tỷ tham số``).
"""

from __future__ import annotations

import re
import string
import subprocess
import sys

import pytest

from graders.errors import Failure, FailureKind, render
from graders.words import catalogue
from graders.words.messages import say, templates
from graders.words.numbers import fill, format_number
from graders.words.text import number
from graders.words.vocabulary import t


def test_a_failure_with_large_and_fractional_numbers_reads_in_each_language():
    wire = say("ch5:wire", rank=1, step=2, name="ZeRO-2", sent=1234567.0, kinds="all_gather", limit=98765.4)
    load = say("ch4:server load", workers=3, server=0, moved=12345, ratio=2.25, worker=4096)
    failure = Failure.of(
        FailureKind.WRONG, wire + "\n" + load, hint=say("ch11:memory", got=0.25, expected=1.5)
    )
    en, vi = render(failure, "en"), render(failure, "vi")
    assert "sent 1,234,567 bytes" in en and "sends 98,765," in en
    assert "đã gửi 1.234.567 byte" in vi and "chỉ gửi 98.765," in vi
    assert "2.2x a worker's 4096 B" in en and "gấp 2,2 lần 4096 B" in vi  # {ratio:.1f}: 2.25 -> 2.2
    assert "moved 12345 B" in en and "tổng cộng 12345 B" in vi  # no spec: an int as it is
    assert "memory_per_gpu is 0.25 B" in en and "gives 1.5 B" in en
    assert "memory_per_gpu là 0,25 B" in vi and "cho 1,5 B" in vi  # a float without a spec


def test_a_wrong_value_reads_in_each_language_and_its_preview_stays_code():
    """The first wrong value is a number in a sentence: a decimal comma in Vietnamese. The preview
    rows under it are tensors written as code (``[-0.15117, 0.20857]``): with decimal commas
    their elements could not be told apart."""
    wrong = say("wrong values", what="x", bad=12, numel=12, index=(0, 0), expected=-0.25, got=1.5)
    assert wrong.in_lang("en").endswith("expected -0.25, got 1.5.")
    assert wrong.in_lang("vi").endswith("cần -0,25, nhận được 1,5.")
    preview = say("preview", expected="[-0.25, 0.5]", got="[1.5, 0.5]")
    assert "[-0.25, 0.5]" in preview.in_lang("vi")


def test_a_grouped_and_a_two_decimal_field():
    said = say("promise:on a rank", rank=0, got=12345, said="", what="x", limit=1024)
    assert said.startswith("rank 0: 12,345 bytes") and said.endswith("at most 1,024.")
    assert said.in_lang("vi").startswith("rank 0: 12.345 byte") and said.in_lang("vi").endswith(
        "tối đa 1.024."
    )
    values = {"seconds": 0.25, "chapter": "ch2", "earned": 7, "possible": 20}
    assert fill(t("watch:verdict", "en"), "en", **values).startswith("verdict 0.25 s after")
    assert "sau 0,25 s kể từ" in fill(t("watch:verdict", "vi"), "vi", **values)
    assert "ch2 7/20" in fill(t("watch:verdict", "vi"), "vi", **values)


@pytest.mark.parametrize(
    ("value", "spec", "en", "vi"),
    [
        (12345, ",", "12,345", "12.345"),
        (0.25, ".2f", "0.25", "0,25"),
        (0.25, "", "0.25", "0,25"),
        (1234567.891, ",.2f", "1,234,567.89", "1.234.567,89"),
        (-1.5e-5, "g", "-1.5e-05", "-1,5e-05"),
        (0.256, ".1%", "25.6%", "25,6%"),
        (3.5, ">8.2f", "    3.50", "    3,50"),
        (3.5, ".<8.1f", "3.5.....", "3,5....."),  # the fill stays what the spec says
        (12345, "", "12345", "12345"),  # an int without a spec: as it is, a rank or a step too
        (255, "x", "ff", "ff"),
        (True, "", "True", "True"),
        ("1.5", "", "1.5", "1.5"),  # text is never a number
        (2.675, ".2f", "2.67", "2,67"),  # Python's rounding in every language: the same digits
    ],
)
def test_format_number(value, spec, en, vi):
    assert format_number(value, spec, "en") == en == format(value, spec)
    assert format_number(value, spec, "vi") == vi


def test_fill_formats_what_str_format_does():
    template = "{a:,} {b!r} {c[0]:.1f} {d.real:g} {e:>{w}}"
    values = {"a": 1234, "b": 0.5, "c": [0.25], "d": 2.5, "e": "x", "w": 3}
    assert fill(template, "en", **values) == template.format(**values) == "1,234 0.5 0.2 2.5   x"
    assert fill(template, "vi", **values) == "1.234 0.5 0,2 2,5   x"  # !r is Python's own notation


#: what no Vietnamese text holds outside code and placeholders: a count with an English magnitude
#: (``7.5B``, ``7B``) or an English decimal point (``0.25``; ``57.344`` is Vietnamese grouping)
ENGLISH_COUNT = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?[KMBT]\b|(?<![\w.,\-*^])\d+\.\d{1,2}(?![\w.,])")
CHAPTERS = catalogue.CHAPTERS_DIR
NOT_PROSE = re.compile(r"```.*?```|`[^`\n]*`|\{[^{}\n]*\}", re.S)


@pytest.mark.parametrize(
    "domain", [catalogue.KIT, *sorted(p.parent.name for p in CHAPTERS.glob("ch*/words"))]
)
def test_a_count_in_a_vietnamese_sentence_is_written_the_vietnamese_way(domain):
    written = {key: text for key, _, text in catalogue.translations(domain, "vi")}
    prose = {key: NOT_PROSE.sub(" ", text) for key, text in written.items()}
    assert {
        key: ENGLISH_COUNT.findall(text) for key, text in prose.items() if ENGLISH_COUNT.search(text)
    } == {}
    if domain == "ch5":  # the ZeRO paper's model, as the paper and the lecturer write it
        assert "7.5B parameters" in templates("ch5:cost:paper")["en"]
        assert "7,5 tỷ tham số" in written["ch5:cost:paper"]
    assert number(0.5, ".2f") == "0.50" and number(0.5, ".2f").in_lang("vi") == "0,50"


def _sample(spec: str, conversion: str | None) -> object:
    if conversion or not spec:
        return 1234567.25 if not conversion else "text"
    return 1234567.25 if spec[-1] in "eEfFgG%" else 1234567


def _said_messages():
    for name in [catalogue.KIT, *sorted(p.parent.name for p in catalogue.CHAPTERS_DIR.glob("ch*/words"))]:
        for key, entry in catalogue.domain(name).items():
            parsed = list(string.Formatter().parse(entry["en"]))
            specs = {f: (s, c) for _, f, s, c in parsed if f}
            if key.startswith(("word:", "part:", "hint:", "recap:")) or not any(s for s, _ in specs.values()):
                continue
            if any(not f.isidentifier() or "{" in s for f, (s, _) in specs.items()):
                continue
            yield key, {f: _sample(s, c) for f, (s, c) in specs.items()}


SAID = list(_said_messages())


def test_messages_with_number_specs_are_sampled():
    assert len(SAID) >= 15, [key for key, _ in SAID]


@pytest.mark.parametrize(("key", "values"), SAID, ids=[key for key, _ in SAID])
def test_english_is_what_str_format_prints_and_vietnamese_groups_with_dots(key, values):
    said = say(key, **values)
    assert said == templates(key)["en"].format(**values)
    vi = said.in_lang("vi")
    assert "1,234,567" not in vi and "567.25" not in vi, vi
    grouped = [s for _, _, s, _ in string.Formatter().parse(templates(key)["en"]) if s and "," in s]
    assert ("1.234.567" in vi) == bool(grouped), vi


WARMED = """
import sys
from graders.words import catalogue

catalogue.load_all()  # as the fork server does, before graded code runs

class Refuse:  # as the guard does while graded code runs: no import, no locale data read
    def find_spec(self, name, path=None, target=None):
        raise ImportError(f"imported {name} after load_all")

import babel.localedata
from graders.words.messages import say

def refused(*args, **kwargs):
    raise OSError("read Babel's locale data after load_all")

babel.localedata.load = refused
sys.meta_path.insert(0, Refuse())
said = say("ch5:wire", rank=1, step=2, name="x", sent=1234567.0, kinds="y", limit=0.5)
print(said.in_lang("vi").split(":")[1].split("(")[0].strip())
"""


def test_babel_is_ready_before_graded_code_runs():
    done = subprocess.run([sys.executable, "-c", WARMED], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "x đã gửi 1.234.567 byte"
