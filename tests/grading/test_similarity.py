"""Similar submissions are flagged for review (``graders.grading.reports.similarity``), the stubs are not
evidence, and independent solutions are not flagged."""

import csv
import re
import subprocess
import sys

import pytest

from graders.grading.reports import similarity
from graders.impl import KIT_ROOT

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands


def _files(folder, names=None) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.py")) if names is None or p.name in names}


def _renamed(files: dict[str, bytes]) -> dict[str, bytes]:
    """Every local name changed and the comments dropped: a copy that hides itself."""
    out = {}
    for name, code in files.items():
        text = re.sub(r"#.*", "", code.decode())
        for old in ("local", "expert", "tokens", "probs", "weights", "counts", "group", "rank"):
            text = re.sub(rf"\b{old}\b", f"my_{old}_x", text)
        out[name] = text.encode()
    return out


def _pairs(found) -> set[tuple[str, str]]:
    return {(p.first, p.second) for p in found.pairs}


def test_a_renamed_copy_is_flagged_and_an_independent_solution_is_not(tmp_path):
    honest = KIT_ROOT / "fixtures/submissions/ch10/honest_alternative"
    solution = _files(KIT_ROOT / "solutions/ch10", {p.name for p in honest.glob("*.py")})
    submissions = {"kit": solution, "copycat": _renamed(solution), "independent": _files(honest)}
    found = similarity.compare(submissions, "ch10", tmp_path)
    assert _pairs(found) == {("copycat", "kit")}
    (pair,) = found.pairs
    assert pair.first_score > 0.95 and pair.second_score > 0.95 and pair.tokens >= 100
    html = (tmp_path / "similarity.html").read_text()
    assert "<summary>copycat ↔ kit</summary>" in html and "<mark>" in html and str(tmp_path) not in html
    assert "independent" not in html  # only the flagged pairs' code is shown
    with open(tmp_path / "similarity.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["first"], r["second"]) for r in rows] == [("copycat", "kit")]
    assert float(rows[0]["first_score"]) == pair.first_score


def test_the_stubs_are_not_evidence(tmp_path):
    """Two students who handed in the stubs untouched, and two who only reworded the
    docstrings, share only what everyone was given."""
    stub = _files(KIT_ROOT / "exercises/ch5")
    stub = {name: code for name, code in stub.items() if not name.startswith("test_")}
    reworded = {name: code.replace(b"the ", b"each ") for name, code in stub.items()}
    found = similarity.compare({"a": stub, "b": dict(stub), "c": reworded}, "ch5", tmp_path)
    assert found.pairs == [] and found.compared == 3


def test_the_scores_are_the_same_every_run(tmp_path):
    """copydetect hashes with Python's string hash, which changes from process to process: the
    kit keeps every fingerprint, so no choice depends on it. (The page is in the teacher's
    language.)"""
    out = []
    for seed in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-m", "graders", "similarity", str(KIT_ROOT / "fixtures/submissions/ch2"),
             "--chapter", "ch2", "--out", str(tmp_path / seed), "--threshold", "0.3", "--lang", "vi"],
            capture_output=True, text=True, timeout=300, env={"PYTHONHASHSEED": seed, "PATH": ""},
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        out.append((tmp_path / seed / "similarity.csv").read_text())
        assert '<html lang="vi">' in (tmp_path / seed / "similarity.html").read_text()
    assert out[0] == out[1] and out[0].count("\n") >= 3


def test_one_submission_or_none_has_nothing_to_compare(tmp_path):
    found = similarity.compare({"alone": {"zero.py": b"x = 1\n"}}, "ch5", tmp_path)
    assert found.pairs == [] and "nothing to compare" in (tmp_path / "similarity.html").read_text()


def test_code_that_stops_tokenising_is_kept_from_there():
    broken = '"""Module."""\nx = 1  # one\ndef f(:\n    """doc\n'
    assert similarity.code_only(broken) == 'x = 1\ndef f(:\n    """doc'
    assert similarity.code_only('def f():\n    """doc"""\n    return 1  # one\n') == "def f():\n    return 1"
