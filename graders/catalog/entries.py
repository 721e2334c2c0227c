"""The shapes of the catalog: an :class:`Exercise`, a :class:`Chapter`, and ``exercises_of``, the
helper that declares one module's exercises (each chapter's ``chapter.py``; see :mod:`graders.catalog`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Exercise:
    id: str  # "ch2.ring_all_reduce"
    module: str  # file stem in the chapter folder: "collectives"
    symbol: str  # the function or class the student writes
    parts: dict[str, int] = field(hash=False)  # part name -> points
    title: str = ""
    banned: frozenset[str] = frozenset()
    #: its memory is measured by the live ledger (torch storages): places where memory lives
    #: outside them (numpy, Python lists, pickles, files, threads) are closed to it
    measured_memory: bool = False
    #: it runs on several ranks: data may travel only through the graded calls (no files, sockets)
    multi_rank: bool = True
    #: ``"torchrun"``: its graded code is a program, run in a world torchrun's launcher starts
    launcher: str = ""
    #: memory findings of the static scan it may have all the same (``"item"``: an optimizer reads
    #: its step counter with ``.item()``, as torch's own do)
    scan_allows: frozenset[str] = frozenset()
    #: its contract says "by hand": the operators its graded code runs are admitted from an
    #: allowlist (:mod:`graders.catalog.hand_math`), and its arithmetic is kept for the checks
    hand_written: bool = False

    @property
    def chapter(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def points(self) -> int:
        return sum(self.parts.values())


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    title_vi: str
    exercises: tuple[Exercise, ...]
    #: the chapters whose student code this one imports (``from ..ch6.blocks import ...``): they are
    #: graded code too, and a change in them changes this chapter's grade
    builds_on: tuple[str, ...] = ()
    #: exercise name -> the parts hidden graders (``hidden/chN/test_hidden_*.py``) grade too, at
    #: grading time only; a local run names them as not fully checked
    hidden: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)

    @property
    def points(self) -> int:
        return sum(e.points for e in self.exercises)

    def title_in(self, lang: str) -> str:
        """The chapter's title in ``lang`` (English where the kit has no other)."""
        return self.title_vi if lang == "vi" else self.title

    @property
    def modules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.module for e in self.exercises))


def exercises_of(
    chapter: str,
    module: str,
    *rows: tuple,
    banned: frozenset[str] = frozenset(),
    measured_memory: bool = False,
    multi_rank: bool = True,
    launcher: str = "",
    scan_allows: frozenset[str] = frozenset(),
    hand_written: bool = False,
):
    """The exercises of one module: rows of ``(name, parts, title[, symbol])``; the symbol is the
    name unless given."""
    for name, parts, title, *symbol in rows:
        symbol = symbol[0] if symbol else name
        yield Exercise(
            f"{chapter}.{name}",
            module,
            symbol,
            parts,
            title,
            banned,
            measured_memory,
            multi_rank,
            launcher,
            scan_allows,
            hand_written,
        )
