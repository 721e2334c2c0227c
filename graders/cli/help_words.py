"""The commands' help in the reader's language: ``dtlab --help`` and each command's ``--help``.

argparse prints what the parser holds, so the parser is translated once it is built: each help
text and description that has a kit word ``help:<command>:<what>`` (``help:check:--explain``,
``help:check:description``, ``help:dtlab:check`` for the command's line in ``dtlab --help``, or
``help:--impl`` for an option many commands share) is
replaced by its text in the reader's language, while its English is still the parser's (a help
text changed in the code reads in English until it is said again). argparse's own words
(``usage:``, ``options:``) stay as argparse prints them.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence

from graders import config
from graders.words.catalogue import LANGS
from graders.words.vocabulary import word


def help_lang(argv: Sequence[str]) -> str:
    """The language of the help: ``--lang`` on the command line, else ``$DTLAB_LANG``, else en."""
    lang = config.lang()
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            lang = argv[i + 1]
        elif arg.startswith("--lang="):
            lang = arg.removeprefix("--lang=")
    return lang if lang in LANGS else "en"


def help_texts(parser: argparse.ArgumentParser, command: str = "dtlab") -> Iterator[tuple[str, object, str]]:
    """``(key, holder, attribute)`` of every help text and description of ``parser`` and of its
    commands, ``key`` the word that translates it."""
    yield f"help:{command}:description", parser, "description"
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for line in action._choices_actions:  # a command's line in the parent's --help
                yield f"help:{command}:{line.dest}", line, "help"
            for name, sub in action.choices.items():
                yield from help_texts(sub, name if command == "dtlab" else f"{command} {name}")
        elif not isinstance(action, argparse._HelpAction):
            named = max(action.option_strings, key=len) if action.option_strings else action.dest
            yield f"help:{command}:{named}", action, "help"


def translate(parser: argparse.ArgumentParser, lang: str) -> argparse.ArgumentParser:
    """``parser`` with the help texts the kit says in ``lang`` said so (in place)."""
    if lang == "en":
        return parser
    for key, holder, attribute in help_texts(parser):
        english = getattr(holder, attribute)
        # the command's own word, else the word of an option many commands share (help:--impl)
        for said in (word(key), word("help:" + key.rpartition(":")[2])):
            if english and said and said["en"] == english and said.get(lang):
                setattr(holder, attribute, said[lang])
                break
    return parser
