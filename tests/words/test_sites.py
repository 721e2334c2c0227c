"""Where in the student's code, in the student's language: call sites (``file:line in function``
is the recorders' data, words only when rendered: graders.words.sites) and syntax errors."""

from graders.comm.static_scan import scan_source
from graders.comm.trace import Traces, parse
from graders.errors import BannedCall
from graders.words.messages import say
from graders.words.sites import site_said
from graders.words.text import join
from graders.world import reports
from graders.world.banned_report import raise_for_banned
from graders.world.task import TaskSpec


def test_a_site_keeps_its_english_and_reads_in_vietnamese():
    said = site_said("collectives.py:1234 in ring_all_reduce")
    assert said == "collectives.py:1234 in ring_all_reduce"
    assert said.in_lang("vi") == "collectives.py:1234 trong hàm ring_all_reduce"  # no 1.234 grouping
    assert site_said("collectives.py:12") == "collectives.py:12"  # another shape stays as it is


def test_a_banned_call_and_its_note_say_the_site_in_vietnamese():
    spec = TaskSpec("ch2.ring_all_reduce", "collectives", "ring_all_reduce")
    banned = Traces([parse([("banned:all_reduce", 0, -1, (), 0, "collectives.py:37 in ring_all_reduce")])])
    try:
        raise_for_banned(banned, spec)
    except BannedCall as error:
        assert str(error).startswith(
            "rank 0 called torch.distributed.all_reduce at collectives.py:37 in ring"
        )
        assert " in ring_all_reduce" not in error.localized["vi"]
        assert "tại collectives.py:37 trong hàm ring_all_reduce" in error.localized["vi"]
        assert error.note.in_lang("vi").endswith("tại collectives.py:37 trong hàm ring_all_reduce (bị cấm)")
    else:
        raise AssertionError("the banned call was not refused")


def test_a_hangs_call_stack_reads_in_vietnamese():
    stack = (
        '  File "/sub/collectives.py", line 12 in ring_shift\n  File "/sub/collectives.py", line 30 in main'
    )
    frames = reports.student_frames(stack, "/sub")
    assert frames == ["collectives.py:12 in ring_shift", "collectives.py:30 in main"]
    said = say("rank:stack", frames=join(" ← ", [site_said(f) for f in frames]))
    assert said == "stack: collectives.py:12 in ring_shift ← collectives.py:30 in main"
    assert (
        said.in_lang("vi")
        == "call stack: collectives.py:12 trong hàm ring_shift ← collectives.py:30 trong hàm main"
    )


def test_a_syntax_error_says_its_line_in_vietnamese():
    error = scan_source("x = 1\n" * 1233 + "def f(:\n    pass\n").syntax_error
    assert error == "line 1234: invalid syntax"
    said = say("submission:does not compile", exercise="ch2.ring_shift", file="collectives.py", error=error)
    assert (
        said.in_lang("vi")
        == "ch2.ring_shift: collectives.py không biên dịch được (dòng 1234: invalid syntax)."
    )
