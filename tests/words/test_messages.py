"""Every teaching message exists in every language, and graders write no text of their own.

The messages are gettext catalogues (:mod:`graders.words.catalogue`): the kit's domain and each
chapter's (``graders/chapters/chN/words/``), an English template beside each language's ``.po``.
A grader that passes a literal (``fail(f"...")``, ``hint="..."``, ``what=f"..."``, a ``*_HINT``
constant) instead of :func:`graders.words.messages.say` would reach a Vietnamese student in English.
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from graders.impl import KIT_ROOT
from graders.words import catalogue
from graders.words.messages import say
from graders.words.text import Text, join
from graders.words.vocabulary import LANGS

GRADERS = KIT_ROOT / "graders"
CHAPTERS = sorted(p.parent.name for p in GRADERS.glob("chapters/ch*/chapter.py"))
DOMAINS = [catalogue.KIT, *CHAPTERS]
#: Modules whose text reaches students: the judgements and the assertions they share.
MESSAGE_MODULES = sorted(
    [GRADERS / "judge" / "checks.py", GRADERS / "comm" / "assertions.py", *GRADERS.glob("training/*.py")]
    + [GRADERS / "world" / "pool.py", GRADERS / "world" / "reports.py"]
    + [p for ch in CHAPTERS for p in (GRADERS / "chapters" / ch).rglob("*.py")]
)
#: Functions still passing English text of their own: this list only shrinks.
NOT_YET_TRANSLATED: set[str] = set()
TEXT_KEYWORDS = {"hint", "what"}
#: the kit's entries that are not messages said with ``say``: words, part names, the hint command's
NOT_SAID = ("word:", "part:", "hint command:")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def messages(domain: str) -> dict[str, dict[str, str]]:
    """The entries of ``domain`` that graders say (a chapter's hints and recaps aside)."""
    entries = catalogue.domain(domain)
    if domain == catalogue.KIT:
        return {k: v for k, v in entries.items() if not k.startswith(NOT_SAID)}
    return {k: v for k, v in entries.items() if not k.startswith(("hint:", "recap:"))}


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_entry_is_in_every_language_with_the_same_fields(domain):
    """Complete, no stale translation, the same ``str.format`` fields, no copy of the English."""
    template = catalogue.domain(domain)
    assert template, f"the {domain} catalogue is empty"
    for lang in LANGS[1:]:
        written = catalogue.translations(domain, lang)
        keys = [key for key, _, _ in written]
        assert len(keys) == len(set(keys)), f"{domain} {lang}.po names a key twice"
        assert sorted(set(template) - set(keys)) == [], f"{domain}: {lang}.po lacks these keys"
        assert sorted(set(keys) - set(template)) == [], f"{domain}: {lang}.po has keys the template lacks"
        for key, english, text in written:
            assert english == template[key]["en"], f"{domain} {key}: {lang}.po translates an older English"
            assert text.strip(), f"{domain} {key}: the {lang} text is empty"
            assert fields(english) == fields(text), f"{domain} {key}: en and {lang} name different fields"
            if len(english) > 12:
                assert english != text, f"{domain} {key}: the {lang} text is a copy of the English"


@pytest.mark.parametrize("domain", CHAPTERS)
def test_a_chapter_says_only_its_own_keys(domain):
    for key in messages(domain):
        assert key.startswith(f"{domain}:"), f"{domain} message {key!r} must start with '{domain}:'"


#: what says a message: ``say`` now, ``say_later`` as data said at print time (the sandbox's notes)
SAYERS = {"say", "say_later"}


def _say_keys(tree: ast.AST) -> list[str]:
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) in SAYERS
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ]


def test_every_key_said_exists_and_every_key_is_said():
    said: set[str] = set()
    for path in GRADERS.rglob("*.py"):
        said.update(_say_keys(ast.parse(path.read_text())))
    known = {key for domain in DOMAINS for key in messages(domain)}
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

    from graders.errors import GradingFailure
    from graders.judge.checks import assert_tensor_equal

    with pytest.raises(GradingFailure) as info:
        assert_tensor_equal(
            torch.zeros(3), torch.ones(3), what="rank 0's result", hint=say("modified input:hint"), case="c"
        )
    vi = info.value.localized["vi"]
    assert "sai giá trị ở 3 trên 3 vị trí" in vi and "\nví dụ: 'c'" in vi and "\ngợi ý: hãy làm" in vi
    assert "wrong values at 3 of 3" in str(info.value) and "\nhint: work on a copy" in str(info.value)


def test_every_door_has_its_words_in_both_languages():
    from graders.catalog import DOORS

    for name, does in DOORS.items():
        key = f"banned:door:{name}"
        kit = catalogue.domain(catalogue.KIT)
        assert key in kit, f"the door {name!r} needs its words, {key!r}, in the kit's catalogue"
        assert kit[key]["en"] == does, f"{key} differs from catalog.DOORS"
    doors = {
        k.removeprefix("banned:door:")
        for k in catalogue.domain(catalogue.KIT)
        if k.startswith("banned:door:")
    }
    assert doors - {"hint"} == set(DOORS)


def test_what_the_world_reports_reads_in_the_students_language():
    from graders.comm.trace import Traces, parse
    from graders.errors import BannedCall, NotStarted, StudentError, TaskHang
    from graders.world import pool, reports
    from graders.world.banned_report import raise_for_banned
    from graders.world.task import TaskSpec

    spec = TaskSpec("ch2.ring_shift", "collectives", "ring_shift")
    example = "world_size=2"
    banned = Traces([parse([("banned:all_reduce", 0, -1, (), 0, "collectives.py:9 in ring_shift")]), []])
    with pytest.raises(BannedCall) as info:
        raise_for_banned(banned, spec, example)
    assert str(info.value).startswith("rank 0 called torch.distributed.all_reduce at collectives.py:9")
    assert "rank 0 đã gọi torch.distributed.all_reduce tại collectives.py:9" in info.value.localized["vi"]
    assert "\nví dụ: world_size=2\ngợi ý: bài tập này" in info.value.localized["vi"]
    door = Traces([parse([("banned:gc.get_objects", 0, -1, (), 0, "")])])
    with pytest.raises(BannedCall) as info:
        raise_for_banned(door, spec)
    assert "rank 0 đã duyệt qua mọi đối tượng đang tồn tại (gc.get_objects)" in info.value.localized["vi"]
    assert info.value.note == "rank 0 walks every live object (gc.get_objects) (banned)"  # the integrity note
    assert (
        info.value.note.in_lang("vi")
        == "rank 0 đã duyệt qua mọi đối tượng đang tồn tại (gc.get_objects) (bị cấm)"
    )
    event = ("banned:operator:aten::is_same_size", 0, -1, (), 0, "layers.py:7 in backward")
    refused = Traces([parse([event])])
    with pytest.raises(BannedCall) as info:
        raise_for_banned(refused, TaskSpec("ch6.row_parallel_linear", "layers", "RowParallelLinear"))
    assert str(info.value).startswith("rank 0 ran the operator aten::is_same_size at layers.py:7 in backward")
    assert "rank 0 đã chạy toán tử aten::is_same_size" in info.value.localized["vi"]

    error = {"type": "ValueError", "message": "rank 1 gives up", "traceback": ""}
    with pytest.raises(StudentError) as info:
        pool._raise_for_errors([{}, {"error": error, "stdout": "hello\n"}], spec, example)
    assert str(info.value).startswith("ch2.ring_shift: rank 1 raised ValueError: rank 1 gives up\nprinted")
    assert "rank 1 ném ngoại lệ ValueError" in info.value.localized["vi"]
    assert "đã in ra (các dòng cuối):\nhello" in info.value.localized["vi"]

    status = {
        "op": "send",
        "peer": 1,
        "nbytes": 112,
        "group": None,
        "site": "collectives.py:53 in ring_shift",
    }
    said = reports.describe_status(status)
    assert said == "blocked in send · to rank 1 · 112 B · at collectives.py:53 in ring_shift"
    assert (
        said.in_lang("vi")
        == "bị chặn trong send · tới rank 1 · 112 B · tại collectives.py:53 trong hàm ring_shift"
    )
    why = reports.diagnose({0: status, 1: dict(status, peer=0)}, set(), 2)
    assert why.startswith("Every stuck rank is in a blocking send") and "send chặn" in why.in_lang("vi")
    hang = TaskHang(join("\n", [why, "  rank 0: " + said]), example=example)
    assert "\n  rank 0: bị chặn trong send" in hang.localized["vi"] and hang.report.startswith("Every stuck")
    assert reports._reason("killed by SIGSEGV").in_lang("vi") == "bị dừng do tín hiệu SIGSEGV"
    assert reports._who([0, 2]).in_lang("vi") == "các rank 0, 2" and reports._who([1]) == "rank 1"

    missing = NotStarted("ch2.ring_shift", pool._todo_detail({"missing": "collectives.py"}))
    assert str(missing) == "ch2.ring_shift: not started (collectives.py is missing)"
    assert missing.localized["vi"] == "ch2.ring_shift: chưa làm (thiếu tệp collectives.py)"


def test_memory_pictures_are_drawn_in_every_language():
    from graders.training.ledger import render_bars

    label = say("live:kept")
    picture = render_bars(say("promise:picture", title="ZeRO-1, 2 ranks"), {0: {label: 700}}, {label: 600})
    assert picture.startswith("ZeRO-1, 2 ranks, live memory, bytes per rank")
    vi = picture.in_lang("vi").splitlines()
    assert vi[0].startswith("ZeRO-1, 2 ranks, bộ nhớ đang dùng, byte mỗi rank   █ đo được")
    assert vi[1].startswith("rank 0  còn được giữ giữa hai bước  ████") and vi[1].endswith("700  > 600 ✗")


def test_a_native_crash_in_a_transfer_gets_the_sizes_hint_whatever_the_signal():
    from graders.world import reports

    sizes, segfault = reports._SIGNAL_HINTS["SIGABRT"], reports._SIGNAL_HINTS["SIGSEGV"]
    in_transfer = {"op": "wait:irecv", "peer": 0, "nbytes": 4, "group": None, "site": ""}
    assert reports._signal_hints("killed by SIGABRT", in_transfer) == [sizes]
    assert reports._signal_hints("killed by SIGSEGV", in_transfer) == [sizes]  # the abort raced
    assert reports._signal_hints("killed by SIGSEGV", None) == [segfault]  # outside gloo: memory
    assert reports._signal_hints("exited with code 3", in_transfer) == []
