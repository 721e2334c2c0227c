"""``dtlab hint chN EXERCISE``: an exercise's graded hints, one level more at each call.

Without ``--level`` a call shows the level after the highest one already seen (the first time
level 1; it stays at the last level); ``--level N`` shows level N, ``--all`` the recap and every
level, ``--recap`` the theory recap alone. What was seen is remembered per exercise in
``.dtlab/hints.json`` under the kit (git-ignored); a file that cannot be read is replaced.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from graders import catalog, config
from graders.impl import KIT_ROOT
from graders.words import hints
from graders.words.messages import templates
from graders.words.numbers import fill
from graders.words.vocabulary import LANGS, exercise_title

#: where the levels already seen are kept: ``{"seen": {"ch2.ring_shift": 2, ...}}``
STATE_FILE = KIT_ROOT / ".dtlab" / "hints.json"
WIDTH = 100


def _say(key: str, lang: str, **fields) -> str:
    """The command's own words (``hint command:<key>`` of the kit's catalogue) in ``lang``."""
    entry = templates(f"hint command:{key}")
    return fill(entry.get(lang, entry["en"]), lang, **fields)


def add_command(sub) -> None:
    """Register ``dtlab hint`` on the ``dtlab`` parser's subcommands."""
    hint = sub.add_parser(
        "hint",
        help="the next graded hint of an exercise (--all: every hint and the theory recap)",
        description="Show an exercise's hints one level at a time; the levels seen are kept in "
        ".dtlab/hints.json (delete it to start over).",
    )
    hint.add_argument("chapter", help="the chapter, e.g. ch2")
    hint.add_argument("exercise", help="the exercise, e.g. ring_all_reduce or ch2.ring_all_reduce")
    shown = hint.add_mutually_exclusive_group()
    shown.add_argument("--level", type=int, help="show this level (1 = a nudge, the last = the key idea)")
    shown.add_argument("--all", action="store_true", help="show the theory recap and every level")
    shown.add_argument("--recap", action="store_true", help="show the theory recap only")
    hint.add_argument("--lang", choices=LANGS, default=None, help="en or vi (default: $DTLAB_LANG, else en)")
    hint.set_defaults(func=run)


def resolve(chapter: str, exercise: str) -> str | None:
    """The catalog id of ``exercise`` in ``chapter`` (``ring_all_reduce``, ``ch2.ring_all_reduce`` or the
    symbol the student writes, ``Zero1Optimizer``), or None."""
    known = catalog.CHAPTERS[chapter].exercises
    for e in known:
        if exercise in (e.id, e.id.split(".", 1)[1], e.symbol):
            return e.id
    return None


def run(args: argparse.Namespace) -> int:
    lang = args.lang or (config.lang() if config.lang() in LANGS else "en")
    if args.chapter not in catalog.CHAPTERS:
        print(
            _say("no chapter", lang, chapter=args.chapter, chapters=", ".join(catalog.CHAPTERS)),
            file=sys.stderr,
        )
        return 2
    exercise_id = resolve(args.chapter, args.exercise)
    if exercise_id is None:
        names = ", ".join(e.id.split(".", 1)[1] for e in catalog.CHAPTERS[args.chapter].exercises)
        print(
            _say("no exercise", lang, chapter=args.chapter, exercise=args.exercise, names=names),
            file=sys.stderr,
        )
        return 2
    texts = hints.hints(exercise_id, lang)
    levels = len(texts)
    title = exercise_title(catalog.EXERCISES[exercise_id], lang)
    fields = {"id": exercise_id, "title": title, "levels": levels}
    if args.level is not None and not 1 <= args.level <= levels:
        print(_say("no level", lang, level=args.level, **fields), file=sys.stderr)
        return 2
    command = f"dtlab hint {args.chapter} {exercise_id.split('.', 1)[1]}" + (
        " --lang vi" if lang == "vi" else ""
    )
    if args.recap or args.all:
        print(_say("recap", lang, **fields))
        for line in hints.recap(exercise_id, lang).splitlines():
            print(_fill(line, "  ", "    "))
        if args.recap:
            return 0
    state = _load(lang)
    seen = max(0, min(state["seen"].get(exercise_id, 0), levels))
    if args.all:
        shown = list(range(1, levels + 1))
    else:
        shown = [args.level if args.level is not None else min(seen + 1, levels)]
    for level in shown:
        print(("\n" if args.all else "") + _say("heading", lang, level=level, **fields))
        print(_fill(texts[level - 1], "  ", "  "))
    state["seen"][exercise_id] = max(seen, shown[-1])
    _save(state, lang)
    if not args.all:  # what follows the level just shown, whatever was seen before
        level = shown[-1]
        if level >= levels:
            print(_say("last", lang, command=command))
        else:
            again = command if args.level is None else f"{command} --level {level + 1}"
            print(_say("next", lang, command=again, level=level + 1, levels=levels))
    return 0


def _fill(text: str, first: str, rest: str) -> str:
    return textwrap.fill(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_on_hyphens=False,
        break_long_words=False,
    )


def _load(lang: str) -> dict:
    """The state file's contents, or a fresh state when it is missing or unreadable."""
    path = STATE_FILE
    if not path.exists():
        return {"seen": {}}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        seen = state["seen"]
        if not isinstance(seen, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in seen.items()
        ):
            raise ValueError("unexpected contents")
        return state
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(_say("state replaced", lang, path=path, why=type(exc).__name__), file=sys.stderr)
        return {"seen": {}}


def _save(state: dict, lang: str) -> None:
    """Write the state atomically (a temporary file renamed over the old one)."""
    path = STATE_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(partial, path)
    except OSError as exc:
        print(_say("state unsaved", lang, path=path, why=exc.strerror or type(exc).__name__), file=sys.stderr)
