"""The commands' help reads in the reader's language (graders.cli.help_words): every word
``help:...`` still says the parser's English, and no command, a student's or a teacher's, has
English help left."""

import re

from graders.cli.help_words import help_lang, help_texts, translate
from graders.cli.main import build_parser
from graders.words.catalogue import KIT, domain

#: a help text that is an example, not words (``ch2``, ``ch2.broadcast``)
EXAMPLE = re.compile(r"[\w.]+")


def test_every_help_word_says_the_parsers_english():
    english = {}
    for key, holder, attribute in help_texts(build_parser()):
        text = getattr(holder, attribute)
        english.setdefault(key, set()).add(text)
        english.setdefault("help:" + key.rpartition(":")[2], set()).add(text)
    for key, said in domain(KIT).items():
        if key.startswith("word:help:"):
            assert said["en"] in english.get(key.removeprefix("word:"), set()), f"{key}: an older help text"


def test_every_commands_help_in_vietnamese_and_english_as_it_was():
    parser, plain = translate(build_parser(), "vi"), build_parser()
    vi = {key: getattr(h, a) for key, h, a in help_texts(parser)}
    en = {key: getattr(h, a) for key, h, a in help_texts(plain)}
    for key, text in en.items():
        if text and not EXAMPLE.fullmatch(text):
            assert vi[key] != text, f"{key} is still English: {text}"
    assert vi["help:check:--explain"] == "thêm phần ôn lý thuyết và các gợi ý"
    assert translate(build_parser(), "en").format_help() == plain.format_help()


def test_the_help_language_is_the_command_lines_then_the_environments(monkeypatch):
    monkeypatch.setenv("DTLAB_LANG", "vi")
    assert help_lang(["check", "--help"]) == "vi"
    assert help_lang(["check", "--lang", "en", "--help"]) == "en"
    monkeypatch.setenv("DTLAB_LANG", "en")
    assert help_lang(["hint", "--lang=vi", "-h"]) == "vi"
    assert help_lang(["hint", "--lang", "xx"]) == "en"
