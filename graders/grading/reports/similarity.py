"""Similar submissions of one chapter, flagged for a teacher's review, never penalised.

Each student's graded files of the chapter are joined into one document, comments and
docstrings blanked out. The chapter's generated stubs (``exercises/chN/*.py``: the signatures
and TODOs every student starts from), blanked the same way, are copydetect's *boilerplate*, so
only the code the students wrote themselves is compared. copydetect tokenises the code (names
become one symbol, so renaming a variable changes nothing) and compares winnowed fingerprints, as
MOSS does. For a pair it gives each side's
score: the share of that student's own code found in the other's. A pair is flagged when either
score reaches the threshold (whoever copied a whole solution and added code of their own scores
lower than the one they copied from) and the match is long enough to be evidence
(``MIN_MATCHING_TOKENS``): two students who wrote little share a few idioms and nothing more.

Written beside the grades: ``similarity.csv`` (the flagged pairs, most similar first, with both
scores) and ``similarity.html`` (:mod:`graders.grading.reports.similarity_page`: the matching code
side by side, in the teacher's language).
"""

from __future__ import annotations

import concurrent.futures
import csv
import io
import itertools
import multiprocessing
import os
import re
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

from graders.grading.reports import similarity_page
from graders.impl import KIT_ROOT
from graders.infra.files import make_dirs, write_atomic
from graders.infra.safe_text import one_line

#: the share of a student's own code found in another's from which a pair is flagged
DEFAULT_THRESHOLD = 0.7
#: the fewest matching tokens (of tokenised code) that flag a pair, whatever its scores
MIN_MATCHING_TOKENS = 100
#: copydetect's noise and guarantee thresholds (characters of tokenised code): matches shorter
#: than the first never count; matches of the second's length are always found. Equal, so that
#: every k-gram's fingerprint is kept (a window of 1): winnowing a larger window keeps each
#: window's smallest hash, and Python's hashes of strings change from run to run, so the scores
#: would too.
NOISE_CHARACTERS = 25
GUARANTEE_CHARACTERS = 25


@dataclass(frozen=True)
class SimilarPair:
    first: str  # student id
    second: str
    first_score: float  # the share of the first's own code found in the second's
    second_score: float
    tokens: int  # tokens of the first's code that match

    @property
    def score(self) -> float:
        return max(self.first_score, self.second_score)


@dataclass(frozen=True)
class Similarity:
    pairs: list[SimilarPair]  # flagged, most similar first
    compared: int  # submissions compared
    csv_path: Path
    html_path: Path


def missing_library() -> str:
    """``""`` when copydetect is installed; else what to install, in a sentence."""
    import importlib.util

    if importlib.util.find_spec("copydetect") is not None:
        return ""
    return "the similarity report needs copydetect: pip install -e '.[reports]' (or copydetect==0.5.0)"


def boilerplate_files(chapter: str) -> list[Path]:
    """The chapter's stubs: the text every student starts from."""
    folder = KIT_ROOT / "exercises" / chapter
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("test_"))


def code_only(text: str) -> str:
    """``text`` with its comments and docstrings blanked out and its blank lines dropped (the
    stubs hand out both, and a student's own prose is not code). Code that stops tokenising
    (a syntax error) is blanked up to there and kept whole after."""
    tokens = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            tokens.append(token)
    except (tokenize.TokenError, SyntaxError):
        pass
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    chars = list(text)
    before = tokenize.NEWLINE
    for token, after in zip(tokens, _next_types(tokens), strict=True):
        docstring = (
            token.type == tokenize.STRING
            and before in _STATEMENT_STARTS
            and after in (tokenize.NEWLINE, tokenize.ENDMARKER)
        )
        if token.type == tokenize.COMMENT or docstring:
            first = starts[token.start[0] - 1] + token.start[1]
            last = starts[token.end[0] - 1] + token.end[1]
            for at in range(first, last):
                if chars[at] != "\n":
                    chars[at] = " "
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            before = token.type
    return "\n".join(line.rstrip() for line in "".join(chars).splitlines() if line.strip())


def _next_types(tokens: list) -> list[int]:
    """For each token, the type of the next token that is not a comment."""
    found, after = [], tokenize.ENDMARKER
    for token in reversed(tokens):
        found.append(after)
        if token.type != tokenize.COMMENT:
            after = token.type
    return found[::-1]


_STATEMENT_STARTS = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)


def document(files: dict[str, bytes]) -> str:
    """A student's graded modules joined in name order (tests left out), code only."""
    parts = []
    for name in sorted(files):
        if name.endswith(".py") and not Path(name).name.startswith("test_"):
            parts.append(code_only(files[name].decode("utf-8", "replace")))
    return "\n\n".join(parts)


def _safe_name(student: str, taken: set[str]) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", student)[:80] or "student"
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def compare(
    submissions: dict[str, dict[str, bytes]],
    chapter: str,
    out: Path,
    threshold: float = DEFAULT_THRESHOLD,
    lang: str = "en",
) -> Similarity:
    """Compare every pair of ``submissions`` (student id -> graded files) of ``chapter``; write
    ``similarity.csv`` and ``similarity.html`` (in ``lang``) into ``out``."""
    make_dirs(out)
    pairs: list[SimilarPair] = []
    sides: list[similarity_page.SideBySide] = []
    scores: list[float] = []
    with tempfile.TemporaryDirectory(prefix="dtlab-similarity-") as tmp:
        staged = Path(tmp)
        paths, student_of, taken = [], {}, set()
        for student in sorted(submissions):
            path = staged / f"{_safe_name(student, taken)}.py"
            path.write_text(document(submissions[student]), encoding="utf-8")
            paths.append(str(path))
            student_of[str(path)] = student
        if len(paths) >= 2:
            boilerplate = _boilerplate_hashes(chapter, staged)
            prints = _fingerprints(paths, boilerplate)
            compared = _compare_candidates(paths, prints, threshold)
            pairs = _flagged(compared, student_of, threshold)
            sides = _side_by_side(pairs, paths, prints, compared, student_of)
            scores = [float(max(both)) for _, both, _ in compared.values()]
    similarity_page.write(
        out / "similarity.html",
        chapter,
        lang,
        submissions=len(submissions),
        threshold=threshold,
        min_tokens=MIN_MATCHING_TOKENS,
        sides=sides,
        scores=scores,
    )
    _write_csv(pairs, out / "similarity.csv")
    return Similarity(pairs, len(submissions), out / "similarity.csv", out / "similarity.html")


def _boilerplate_hashes(chapter: str, staged: Path):
    """The fingerprints of the chapter's stubs (code only), which no match may use."""
    import numpy as np
    from copydetect import CodeFingerprint

    found = []
    for path in boilerplate_files(chapter):
        stub = staged / f"_stub_{path.name}"
        stub.write_text(code_only(path.read_text()), encoding="utf-8")
        found.extend(CodeFingerprint(str(stub), NOISE_CHARACTERS, 1).hashes)
    return np.unique(np.array(found, dtype=np.int64))


def _fingerprint(path: str, boilerplate):
    from copydetect import CodeFingerprint

    return CodeFingerprint(path, NOISE_CHARACTERS, GUARANTEE_CHARACTERS - NOISE_CHARACTERS + 1, boilerplate)


def _fingerprints(paths: list[str], boilerplate) -> dict:
    """copydetect's fingerprint of every document (tokenising is most of the time: on every core)."""
    workers = min(len(paths) // 20, os.cpu_count() or 1)
    if workers < 2:
        return {path: _fingerprint(path, boilerplate) for path in paths}
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        found = pool.map(_fingerprint, paths, itertools.repeat(boilerplate), chunksize=8)
        return dict(zip(paths, found, strict=True))


def _compare_candidates(paths: list[str], prints: dict, threshold: float) -> dict:
    """copydetect's comparison of every pair that could reach ``threshold``: ``(i, j) ->
    (overlap, (score_i, score_j), slices)``. A pair is skipped when neither side has even half
    the threshold's share of its fingerprints in the other's (copied code shares nearly all its
    fingerprints; a match covers at most as many tokens as the fingerprints it is made of, plus
    one k-gram per matching run)."""
    from copydetect.detector import compare_files

    sets = [set(prints[path].hashes) for path in paths]
    compared = {}
    for i, j in itertools.combinations(range(len(paths)), 2):
        if not sets[i] or not sets[j]:
            continue
        shared = len(sets[i] & sets[j])
        if max(shared / len(sets[i]), shared / len(sets[j])) < threshold / 2:
            continue
        compared[(i, j)] = compare_files(prints[paths[i]], prints[paths[j]])
    return compared


def _flagged(compared: dict, student_of: dict[str, str], threshold: float) -> list[SimilarPair]:
    """Each pair once, either of whose scores reaches ``threshold``, matching enough tokens."""
    students = list(student_of.values())
    pairs = []
    for (i, j), (overlap, scores, _) in compared.items():
        first_score, second_score = (float(s) for s in scores)
        if max(first_score, second_score) >= threshold and int(overlap) >= MIN_MATCHING_TOKENS:
            pairs.append(
                SimilarPair(
                    students[i], students[j], round(first_score, 4), round(second_score, 4), int(overlap)
                )
            )
    return sorted(pairs, key=lambda p: (-p.score, p.first, p.second))


def _side_by_side(
    pairs: list[SimilarPair], paths: list[str], prints: dict, compared: dict, student_of: dict[str, str]
) -> list[similarity_page.SideBySide]:
    """Each flagged pair's code (what was compared: code only), cut at its matching regions."""
    index = {student_of[path]: i for i, path in enumerate(paths)}
    found = []
    for pair in pairs:
        i, j = index[pair.first], index[pair.second]
        _, _, (first, second) = compared[(i, j)]
        found.append(
            similarity_page.SideBySide(
                pair,
                similarity_page.runs(prints[paths[i]].raw_code, first),
                similarity_page.runs(prints[paths[j]].raw_code, second),
            )
        )
    return found


def _write_csv(pairs: list[SimilarPair], path: Path) -> None:
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(["first", "second", "first_score", "second_score", "matching_tokens"])
    for p in pairs:
        writer.writerow(
            [one_line(p.first), one_line(p.second), f"{p.first_score:.4f}", f"{p.second_score:.4f}", p.tokens]
        )
    write_atomic(path, text.getvalue())
