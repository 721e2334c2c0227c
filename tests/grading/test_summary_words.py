"""The class summary a batch prints (``graders.grading.batch.summary``) reads in the lecturer's
language: the failure kinds and the sandbox's layers too; in English it stays as it was."""

from graders import catalog
from graders.errors import Failure
from graders.gradebook import FAILED, PASSED, Gradebook
from graders.grading import sandbox
from graders.grading.batch import BatchOutcome, summary
from graders.grading.result import StudentResult


def _student(sid: str, failing: dict[str, str], **stopped: str) -> StudentResult:
    book = Gradebook()
    for exercise in catalog.CHAPTERS["ch2"].exercises:
        for part in exercise.parts:
            kind = failing.get(f"{exercise.id}::{part}")
            book.record(
                exercise.id, part, FAILED if kind else PASSED, Failure.of(kind, "no") if kind else None
            )
    return StudentResult(sid, book, seconds=2.0, **stopped)


def _outcome() -> BatchOutcome:
    results = [
        _student("ann", {"ch2.ring_shift::result": "not started"}),
        _student(
            "ben", {"ch2.ring_all_reduce::result": "wrong"}, error="ran past 600 s", error_kind="timeout"
        ),
    ]
    layers = sandbox.Isolation(namespaces=True, pivot_root=True, cgroup="v2", drop_uid=True).describe()
    return BatchOutcome(results, ["ann", "ben"], [], 4.0, layers)


def test_the_summary_names_failure_kinds_and_layers_in_vietnamese():
    vi = summary(_outcome(), "ch2", "vi")
    assert "các loại lỗi: " in vi and "chưa làm 1" in vi and "kết quả sai 1" in vi
    assert "  ben: quá giới hạn thời gian: ran past 600 s" in vi  # the error itself is the sandbox's
    assert "cách ly: cây tiến trình riêng, rlimits, cgroup v2 (bộ nhớ, số tiến trình)" in vi
    assert "mỗi bài một uid không đặc quyền" in vi
    for english in ("not started", "wrong", "timeout", "own process tree", "memory, pids", "per job"):
        assert english not in vi


def test_the_english_summary_keeps_the_csv_names_and_layers():
    en = summary(_outcome(), "ch2", "en")
    assert "failures by kind: " in en and "not started 1" in en and "wrong 1" in en
    assert "  ben: timeout: ran past 600 s" in en
    assert (
        "isolation: own process tree, rlimits, cgroup v2 (memory, pids), "
        "pid+net+mount namespaces (whitelisted root), unprivileged uid per job"
    ) in en
