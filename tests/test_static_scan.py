"""The static scan flags ways around the runtime guard, and only those."""

from graders.comm.static_scan import BYPASS, REVIEW, scan_source

SOURCE = """
import torch
import torch.distributed as dist
from torch.distributed import distributed_c10d


def honest(tensor, group: dist.ProcessGroup | None = None):
    dist.send(tensor, 1, group=group)
    return tensor


def helper():
    dist.all_reduce = lambda *a, **k: None


def sneaky(tensor, group=None):
    helper()
    group.allreduce([tensor])


def dynamic():
    mod = __import__("torch")
    import sys
    return sys.modules


def patcher():
    setattr(torch, "equal", lambda *a: True)


def reviewed():
    import gc
    return gc.get_objects()
"""


def findings(symbol, severity=BYPASS):
    return sorted(f.reason for f in scan_source(SOURCE).for_symbol(symbol, severity))


def test_module_level_findings_apply_to_every_function():
    assert findings("honest") == ["reaches torch.distributed's internals (distributed_c10d)"]


def test_helpers_are_followed():
    reasons = findings("sneaky")
    assert "calls a ProcessGroup method (allreduce)" in reasons
    assert "reassigns dist.all_reduce, an attribute of torch" in reasons


def test_dynamic_imports_module_table_and_setattr():
    assert "imports modules dynamically (__import__)" in findings("dynamic")
    assert "edits the module table (sys.modules)" in findings("dynamic")
    assert "changes torch with setattr()" in findings("patcher")


def test_review_findings_are_separate():
    assert findings("reviewed", REVIEW) == ["walks live objects (gc)"]
    assert "walks live objects (gc)" not in findings("reviewed")


def test_annotations_with_process_group_are_fine():
    result = scan_source(
        "import torch.distributed as dist\ndef f(t, group: dist.ProcessGroup = None):\n    return t\n"
    )
    assert result.for_symbol("f") == []


def test_syntax_errors_are_reported_not_raised():
    assert "line 1" in scan_source("def f(:\n").syntax_error
