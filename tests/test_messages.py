"""Every teaching message exists in English and Vietnamese, and graders write no text of their own.

The tables are :data:`graders.messages.SHARED` and each chapter's ``graders/chapters/chN/messages.py``.
A grader that passes a literal (``fail(f"...")``, ``hint="..."``, ``what=f"..."``, a ``*_HINT``
constant) instead of :func:`graders.messages.say` would reach a Vietnamese student in English.
"""

from __future__ import annotations

import ast
import importlib
import string
from pathlib import Path

import pytest

from graders.i18n import LANGS
from graders.impl import KIT_ROOT
from graders.messages import SHARED, Text, join, say

GRADERS = KIT_ROOT / "graders"
CHAPTERS = sorted(p.parent.name for p in GRADERS.glob("chapters/ch*/checks.py"))
#: Modules whose text reaches students: the judgements and the assertions they share.
MESSAGE_MODULES = sorted(
    [GRADERS / "checks.py", GRADERS / "comm" / "assertions.py", *GRADERS.glob("training/*.py")]
    + [p for ch in CHAPTERS for p in (GRADERS / "chapters" / ch).glob("*.py") if p.stem != "messages"]
)
#: Functions still passing English text of their own: this list only shrinks.
NOT_YET_TRANSLATED: set[str] = {
    "graders.chapters.ch2.checks:ALL_REDUCE_HINT",
    "graders.chapters.ch2.checks:REDUCE_SCATTER_HINT",
    "graders.chapters.ch2.checks:REMAINDER_HINT",
    "graders.chapters.ch2.checks:RING_HINT",
    "graders.chapters.ch2.checks:TREE_HINT",
    "graders.chapters.ch2.checks:_inputs_unchanged",
    "graders.chapters.ch2.checks:_returned_none",
    "graders.chapters.ch2.checks:assert_all_gather",
    "graders.chapters.ch2.checks:assert_all_gather_result",
    "graders.chapters.ch2.checks:assert_all_reduce",
    "graders.chapters.ch2.checks:assert_all_to_all",
    "graders.chapters.ch2.checks:assert_all_to_all_result",
    "graders.chapters.ch2.checks:assert_broadcast",
    "graders.chapters.ch2.checks:assert_broadcast_result",
    "graders.chapters.ch2.checks:assert_reduce",
    "graders.chapters.ch2.checks:assert_reduce_result",
    "graders.chapters.ch2.checks:assert_reduce_scatter",
    "graders.chapters.ch2.checks:assert_refuses",
    "graders.chapters.ch2.checks:assert_ring_shift",
    "graders.comm.assertions:assert_bytes_received_at_least",
    "graders.comm.assertions:assert_bytes_sent_at_least",
    "graders.comm.assertions:assert_bytes_sent_at_most",
    "graders.comm.assertions:assert_bytes_sent_per_dst_at_least",
    "graders.comm.assertions:assert_no_self_messages",
    "graders.comm.assertions:assert_ring_neighbours_only",
    "graders.comm.assertions:assert_rounds_at_most",
    "graders.comm.assertions:assert_send_count",
    "graders.comm.assertions:assert_star",
    "graders.comm.assertions:assert_total_messages",
    "graders.comm.assertions:assert_traffic_at_most",
    "graders.training.history:_assert_parameter_history",
    "graders.training.history:assert_history_close",
}
TEXT_KEYWORDS = {"hint", "what"}


def tables() -> dict[str, dict]:
    found = {"shared": SHARED}
    for chapter in CHAPTERS:
        if (GRADERS / "chapters" / chapter / "messages.py").exists():
            found[chapter] = importlib.import_module(f"graders.chapters.{chapter}.messages").MESSAGES
    return found


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("name", list(tables()))
def test_every_message_has_both_languages_with_the_same_fields(name):
    for key, entry in tables()[name].items():
        if name != "shared":
            assert key.startswith(f"{name}:"), f"{name} message {key!r} must start with '{name}:'"
        assert set(entry) == set(LANGS), f"{key}: languages {sorted(entry)}, expected {list(LANGS)}"
        for lang in LANGS:
            assert entry[lang].strip(), f"{key}: the {lang} text is empty"
        assert fields(entry["en"]) == fields(entry["vi"]), f"{key}: en and vi name different fields"
        if len(entry["en"]) > 12:
            assert entry["en"] != entry["vi"], f"{key}: the Vietnamese is a copy of the English"


def _say_keys(tree: ast.AST) -> list[str]:
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "say"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ]


def test_every_key_said_exists_and_every_key_is_said():
    said: set[str] = set()
    for path in GRADERS.rglob("*.py"):
        said.update(_say_keys(ast.parse(path.read_text())))
    known = {key for table in tables().values() for key in table}
    assert sorted(said - known) == [], "said but not in any table"
    # keys built at run time (``say(f"...")``) are named by their prefix in the table itself
    dynamic = {key for key in known if key.endswith(":hint") or key.startswith("describe:")}
    unused = {key for key in known - said - dynamic if not any(key.startswith(s + ":") for s in said)}
    assert sorted(unused) == [], "in a table but never said"


def _is_text_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.Constant) and any(c.isalpha() for c in v.value) for v in node.values)
    if isinstance(node, ast.BinOp):
        return _is_text_literal(node.left) or _is_text_literal(node.right)
    return False


def _literals(path: Path) -> list[str]:
    """``function: what`` for every English literal the module hands to a student."""
    tree = ast.parse(path.read_text())
    found = []
    for top in tree.body:
        if isinstance(top, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.endswith("HINT") for t in top.targets
        ):
            if _is_text_literal(top.value):
                found.append(f"{top.targets[0].id}: a hint constant")
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef):
            continue
        for node in ast.walk(func):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in {"fail", "GradingFailure"} and node.args and _is_text_literal(node.args[0]):
                found.append(f"{func.name}: {name}(...) text")
            if name in {"fail", "GradingFailure"} and len(node.args) > 2 and _is_text_literal(node.args[2]):
                found.append(f"{func.name}: {name} hint")
            for keyword in node.keywords:
                if keyword.arg in TEXT_KEYWORDS and _is_text_literal(keyword.value):
                    found.append(f"{func.name}: {keyword.arg}=")
    return found


def test_graders_pass_no_english_text_of_their_own():
    offenders = []
    for path in MESSAGE_MODULES:
        module = ".".join(path.relative_to(KIT_ROOT).with_suffix("").parts)
        for where in _literals(path):
            if f"{module}:{where.split(':')[0]}" not in NOT_YET_TRANSLATED:
                offenders.append(f"{module}:{where}")
    assert offenders == [], "\n".join(offenders)


def test_text_keeps_both_languages_through_concatenation_formatting_and_pickling():
    import pickle

    what = say("modified input", what="rank 1's input")
    joined = join(" · ", [what, "x"]) + "!"
    assert isinstance(joined, Text) and str(joined).startswith("rank 1's input was modified")
    assert joined.in_lang("vi").startswith("rank 1's input đã bị thay đổi") and joined.endswith("x!")
    nested = say("expected value", what=say("describe:object", type="int"), expected=1, got=2)
    assert nested.in_lang("vi") == "một đối tượng int: cần 1, nhận được 2."
    assert pickle.loads(pickle.dumps(nested)).in_lang("vi") == nested.in_lang("vi")


def test_a_failure_reads_in_the_students_language():
    import torch

    from graders.checks import assert_tensor_equal
    from graders.errors import GradingFailure

    with pytest.raises(GradingFailure) as info:
        assert_tensor_equal(
            torch.zeros(3), torch.ones(3), what="rank 0's result", hint=say("modified input:hint"), case="c"
        )
    vi = info.value.localized["vi"]
    assert "sai giá trị ở 3 trên 3 vị trí" in vi and "\nví dụ: 'c'" in vi and "\ngợi ý: hãy làm" in vi
    assert "wrong values at 3 of 3" in str(info.value) and "\nhint: work on a copy" in str(info.value)
