"""The static scan flags ways around the runtime guard, and only those."""

import pytest

from graders.comm.static_scan import BYPASS, MEMORY, REVIEW, scan_source

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
    assert "reaches the module table (sys.modules)" in findings("dynamic")
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


DOORS = """
import sys
import torch
import graders.chapters.ch5.reference as answers


def unwraps(fn):
    return fn.__wrapped__, fn.__closure__[0].cell_contents, fn.__globals__


def climbs():
    return sys._getframe(1).f_back.f_locals


def walks():
    import gc
    return gc.get_objects(), torch.optim.Optimizer.__subclasses__()


def obfuscates(fn):
    return getattr(fn, "__clo" + "sure__")


def ordinary(layer, name, i):
    return getattr(layer, name), getattr(layer, f"block{i}"), torch.stack([layer.weight])


def hoards(grad):
    import numpy
    return grad.tolist(), grad.numpy()
"""


def door_findings(symbol, severity=BYPASS):
    return sorted(f.reason for f in scan_source(DOORS).for_symbol(symbol, severity) if f.function)


def test_the_doors_around_the_guard_are_bypasses():
    assert "imports the grading kit, whose references are the answers" in findings_of(DOORS, "ordinary")
    assert door_findings("unwraps") == [
        "reads a closure cell (cell_contents)",
        "reads a function's closure (__closure__)",
        "reads a function's module globals (__globals__)",
        "unwraps a function to reach what it wraps (__wrapped__)",
    ]
    assert door_findings("climbs") == [
        "reads a frame's variables (f_locals)",
        "reads the interpreter's frames (sys._getframe)",
        "walks up the call stack (f_back)",
    ]
    assert door_findings("walks") == [
        "walks a class's subclasses (__subclasses__)",
        "walks every live object (gc.get_objects)",
    ]
    assert door_findings("obfuscates") == ["assembles the name of a hidden attribute for getattr()"]
    assert door_findings("ordinary") == []  # computed names and torch.stack are ordinary code


def test_memory_outside_torch_storages_is_its_own_kind():
    assert door_findings("hoards", MEMORY) == [
        "copies a tensor into Python lists (.tolist())",
        "keeps data in numpy arrays",
        "views a tensor as a numpy array (.numpy())",
    ]
    assert door_findings("hoards") == []


def findings_of(source, symbol):
    return sorted(f.reason for f in scan_source(source).for_symbol(symbol, BYPASS))


OPERATORS = """
import torch


def functional(x):
    return torch.ops._c10d_functional.all_reduce(x, "sum", "0")


def legacy(x):
    return torch.ops.c10d.allreduce_


def registry(name):
    return torch._ops._OpNamespace(name), torch._ops._get_packet


def own_ops(self):
    self._ops = []
    return self._ops
"""


def test_torchs_collective_operators_are_bypasses():
    def reasons(symbol):
        return sorted({f.reason for f in scan_source(OPERATORS).for_symbol(symbol, BYPASS) if f.function})

    assert reasons("functional") == [
        "calls collective operators behind the guard (torch.ops._c10d_functional)"
    ]
    assert reasons("legacy") == ["calls collective operators behind the guard (torch.ops.c10d)"]
    assert reasons("registry") == [
        "builds an operator namespace by hand (torch._ops._OpNamespace)",
        "looks up operators by hand (torch._ops._get_packet)",
        "reaches torch's operator registry (torch._ops)",
    ]
    assert reasons("own_ops") == []  # an attribute of one's own called _ops is ordinary code


TABLE = """
import os
import sys as system
import torch


def by_vars():
    return vars(system)["modules"]


def by_getattr():
    return getattr(system, "modules")


def by_namespace():
    return system.__dict__


def through_os():
    return os.sys


def folded(fn):
    return getattr(fn, "_" * 2 + "code" + "_" * 2)


def vf(x):
    return torch._VF._fused_adam_(x)


def ordinary(model):
    return list(model.modules()), model.named_modules()
"""


def test_the_module_table_and_folded_names_are_bypasses():
    def of(function):
        return [
            f.reason for f in scan_source(TABLE).findings if f.function == function and f.severity == BYPASS
        ]

    assert "reads the sys module with vars(), the module table included" in of("by_vars")
    assert "looks up the module table (sys.modules) by name" in of("by_vars")
    assert of("by_getattr") == ["reads the sys module with getattr(), the module table included"] + [
        "reaches the module table (sys.modules)"
    ]
    assert of("by_namespace") == ["reads the sys module's namespace, the module table in it"]
    assert of("through_os") == ["reaches the sys module through another module (os.sys)"]
    assert of("folded") == ["assembles the name of a hidden attribute for getattr()"]
    assert of("vf") == ["calls torch's C bindings directly (torch._VF)"]
    assert of("ordinary") == []  # model.modules() is a method call, not the module table


HOOKS = """
from sys import modules
from torch.nn.modules.module import _global_forward_pre_hooks
import torch


def clears(hook):
    _global_forward_pre_hooks.clear()
    return hook.__self__


def rebinds():
    library = torch
    library.load = lambda *a, **k: {}
"""


def test_imported_doors_hook_tables_and_aliases_are_bypasses():
    found = [(f.function, f.reason) for f in scan_source(HOOKS).findings if f.severity == BYPASS]
    assert ("", "reaches the module table (sys.modules)") in found
    assert ("", "reaches torch's global module hooks, the graders' among them") in found
    assert ("clears", "reads the object behind a bound method (__self__)") in found
    assert ("rebinds", "reassigns library.load, an attribute of torch") in found


def test_the_scans_hint_says_what_the_exercise_allows(tmp_path):
    """An exercise that runs in one process (ch3's optimizers) needs no torch.distributed: its
    hint says so, instead of pointing to distributed calls it has none of."""
    from graders.errors import IntegrityFailure
    from graders.impl import Impl
    from graders.plugin.harness import Harness
    from graders.world.pool import WorldPool
    from graders.world.task import TaskSpec

    sources = {
        "ch3/optimizers.py": "import sys\n\nclass Adam:\n    def step(self):\n        return sys.modules\n",
        "ch2/collectives.py": "import sys\n\ndef ring_shift(tensor, group=None):\n    return sys.modules\n",
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    harness, impl = Harness(WorldPool()), Impl.resolve(tmp_path)
    hints = {}
    for exercise, module, symbol in (
        ("ch3.adam", "optimizers", "Adam"),
        ("ch2.ring_shift", "collectives", "ring_shift"),
    ):
        try:
            harness.check_source(TaskSpec(exercise, module, symbol), impl)
        except IntegrityFailure as exc:
            hints[exercise] = str(exc.hint)
    assert "Adam runs in one process and needs no torch.distributed" in hints["ch3.adam"]
    assert "public torch.distributed calls the exercise allows" in hints["ch2.ring_shift"]


def test_every_reason_has_its_words_in_every_language():
    """Each reason the scan gives (its tables' and the scanner's own) is an entry of the kit's
    catalogue in every language, and each ``scan:finding:`` entry is a reason the scan gives."""
    import re
    from pathlib import Path

    from graders.comm import scan_rules, static_scan
    from graders.words import catalogue

    kit = catalogue.domain(catalogue.KIT)
    tables = [v for name, v in vars(scan_rules).items() if name.strip("_").isupper() and isinstance(v, dict)]
    keys = {key for table in tables for key in table.values() if key}
    keys |= set(re.findall(r'"(scan:finding:[^"]+)"', Path(static_scan.__file__).read_text()))
    assert keys == {key for key in kit if key.startswith("scan:finding:")}
    for key in keys:
        assert set(kit[key]) == set(catalogue.LANGS), f"{key} is not in every language"


def test_a_finding_reads_in_every_language():
    source = "import ctypes\nimport numpy as np\n\n\ndef f(x, group):\n    group.allreduce([x])\n"
    source += "    return x.tolist()\n"
    found = scan_source(source).findings
    assert [str(f) for f in found] == [
        "line 1 (at module level): loads native code (ctypes)",
        "line 2 (at module level): keeps data in numpy arrays",
        "line 6 (in f): calls a ProcessGroup method (allreduce)",
        "line 7 (in f): copies a tensor into Python lists (.tolist())",
    ]
    assert [f.said().in_lang("vi") for f in found] == [
        "dòng 1 (ở cấp module): nạp mã native (ctypes)",
        "dòng 2 (ở cấp module): giữ dữ liệu trong mảng numpy",
        "dòng 6 (trong f): gọi một phương thức của ProcessGroup (allreduce)",
        "dòng 7 (trong f): chép tensor sang list của Python (.tolist())",
    ]


def test_the_integrity_notes_and_the_scans_verdict_read_in_every_language(tmp_path):
    """The part's failure lists the findings in the student's language; the gradebook keeps the
    notes in every language, through its JSON too."""
    from graders.errors import IntegrityFailure
    from graders.gradebook import Gradebook
    from graders.impl import Impl
    from graders.plugin.harness import Harness
    from graders.world.pool import WorldPool
    from graders.world.task import TaskSpec

    (tmp_path / "ch2").mkdir()
    (tmp_path / "ch2" / "collectives.py").write_text(
        "import ctypes\n\ndef ring_shift(tensor, group=None):\n    pass\n"
    )
    harness = Harness(WorldPool())
    with pytest.raises(IntegrityFailure) as failed:
        harness.check_source(TaskSpec("ch2.ring_shift", "collectives", "ring_shift"), Impl.resolve(tmp_path))
    verdict = failed.value.localized
    assert "\n  collectives.py line 1 (at module level): loads native code (ctypes)" in verdict["en"]
    assert "\n  collectives.py dòng 1 (ở cấp module): nạp mã native (ctypes)" in verdict["vi"]
    book = Gradebook()
    book.keep_integrity(harness.integrity)
    book = Gradebook.from_dict(book.to_dict())  # as batch grading reads it back
    assert book.integrity_in("en") == {
        "ch2.ring_shift": ["collectives.py line 1 (at module level): loads native code (ctypes)"]
    }
    assert book.integrity_in("vi") == {
        "ch2.ring_shift": ["collectives.py dòng 1 (ở cấp module): nạp mã native (ctypes)"]
    }
